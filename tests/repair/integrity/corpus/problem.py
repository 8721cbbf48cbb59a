"""relu(x + y + bias), bias per column: a tiny problem the integrity corpus is written against."""
import torch
import torch.nn as nn

OPERATOR = {"id": "integrity_add_bias_relu", "family": "elementwise"}
CASES = [
    {"tier": "compact", "M": 4, "N": 32},
    {"tier": "full", "M": 3, "N": 17},
    {"tier": "full", "M": 2, "N": 65},
]


class Model(nn.Module):
    def __init__(self, N):
        super().__init__()
        self.bias = nn.Parameter(torch.randn(N) * 0.1)

    def forward(self, x, y):
        return torch.relu(x + y + self.bias)


def get_init_inputs(M=4, N=32):
    return [N]


def get_inputs(M=4, N=32):
    return [torch.randn(M, N), torch.randn(M, N)]
