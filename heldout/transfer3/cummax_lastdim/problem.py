"""Running maximum over the last dimension: the values of torch.cummax(x, dim=-1)."""
import torch
import torch.nn as nn

OPERATOR = {"id": "cummax_lastdim", "family": "scan"}
CASES = [
    {"tier": "compact", "M": 4, "N": 64},
    {"tier": "compact", "M": 8, "N": 128},
    {"tier": "full", "M": 1, "N": 1},
    {"tier": "full", "M": 3, "N": 1000},
    {"tier": "full", "M": 5, "N": 300},
    {"tier": "full", "M": 40, "N": 17},
    {"tier": "full", "M": 6, "N": 513, "shift": -5.0},
]


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return torch.cummax(x, dim=-1).values


def get_init_inputs(**case):
    return []


def get_inputs(M=16, N=512, shift=0.0):
    return [torch.randn(M, N) + shift]
