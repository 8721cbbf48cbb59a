"""torch.log_softmax over dim 0 (down the columns) of [M, N]; includes a strongly negative input and a transposed view."""
import torch
import torch.nn as nn

OPERATOR = {"id": "log_softmax_dim0", "family": "softmax"}
CASES = [
    {"tier": "compact", "M": 32, "N": 16},
    {"tier": "compact", "M": 64, "N": 32},
    {"tier": "full", "M": 1, "N": 5},
    {"tier": "full", "M": 50, "N": 37},
    {"tier": "full", "M": 100, "N": 9, "shift": -200.0},
    {"tier": "full", "M": 33, "N": 20, "layout": "transposed"},
]


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return torch.log_softmax(x, dim=0)


def get_init_inputs(**case):
    return []


def get_inputs(M=32, N=16, shift=0.0, layout="contiguous"):
    x = torch.randn(N, M).t() if layout == "transposed" else torch.randn(M, N)
    return [x + shift if shift else x]
