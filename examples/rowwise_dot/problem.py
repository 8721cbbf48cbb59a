"""Row-wise dot product: out[i] = sum_j x[i, j] * y[i, j]."""
import torch
import torch.nn as nn

OPERATOR = {"id": "rowwise_dot", "family": "reduction"}
CASES = [
    {"tier": "compact", "M": 16, "N": 256},
    {"tier": "compact", "M": 8, "N": 128},
    {"tier": "full", "M": 7, "N": 1},
    {"tier": "full", "M": 3, "N": 1000},
    {"tier": "full", "M": 5, "N": 1025},
    {"tier": "full", "M": 33, "N": 70},
]


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x, y):
        return (x * y).sum(dim=-1)


def get_init_inputs(**case):
    return []


def get_inputs(M=64, N=1000):
    return [torch.rand(M, N), torch.rand(M, N)]
