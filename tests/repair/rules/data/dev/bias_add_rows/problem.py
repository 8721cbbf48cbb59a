"""Add a bias vector to every row of a 2-D tensor, then ReLU."""
import torch
import torch.nn as nn

OPERATOR = {"id": "dev_bias_add_rows", "family": "elementwise"}
CASES = [
    {"tier": "compact", "M": 8, "N": 64},
    {"tier": "compact", "M": 4, "N": 100},
    {"tier": "full", "M": 1, "N": 1},
    {"tier": "full", "M": 7, "N": 1000},
    {"tier": "full", "M": 5, "N": 65},
]


class Model(nn.Module):
    def __init__(self, N):
        super().__init__()
        self.bias = nn.Parameter(torch.randn(N))

    def forward(self, x):
        return torch.relu(x + self.bias)


def get_init_inputs(N=64, **case):
    return [N]


def get_inputs(M=8, N=64):
    return [torch.randn(M, N)]
