"""relu(x + y) for two tensors of the same shape."""
import torch
import torch.nn as nn

OPERATOR = {"id": "add_relu", "family": "elementwise"}
CASES = [
    {"tier": "compact", "M": 32, "N": 64},
    {"tier": "compact", "M": 16, "N": 128},
    {"tier": "full", "M": 1, "N": 1},
    {"tier": "full", "M": 7, "N": 33},
    {"tier": "full", "M": 40, "N": 1000},
    {"tier": "full", "M": 3, "N": 1025},
]


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x, y):
        return torch.relu(x + y)


def get_init_inputs(**case):
    return []


def get_inputs(M=64, N=1000):
    return [torch.randn(M, N), torch.randn(M, N)]
