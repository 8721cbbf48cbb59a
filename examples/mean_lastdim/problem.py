"""Mean over the last dimension of a 2-D tensor."""
import torch
import torch.nn as nn

OPERATOR = {"id": "mean_lastdim", "family": "reduction"}
CASES = [
    {"tier": "compact", "M": 4, "N": 64},
    {"tier": "compact", "M": 8, "N": 256},
    {"tier": "full", "M": 7, "N": 1},
    {"tier": "full", "M": 3, "N": 1000},
    {"tier": "full", "M": 5, "N": 1025},
    {"tier": "full", "M": 2, "N": 77},
]


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return torch.mean(x, dim=-1)


def get_init_inputs(**case):
    return []


def get_inputs(M=64, N=1000):
    return [torch.randn(M, N) + 1.0]
