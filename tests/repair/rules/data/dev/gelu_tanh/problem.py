"""GELU with the tanh approximation."""
import torch
import torch.nn as nn
import torch.nn.functional as F

OPERATOR = {"id": "dev_gelu_tanh", "family": "elementwise"}
CASES = [
    {"tier": "compact", "M": 16, "N": 64},
    {"tier": "compact", "M": 4, "N": 100},
    {"tier": "full", "M": 3, "N": 1000, "scale": 40.0},
    {"tier": "full", "M": 1, "N": 1},
]


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return F.gelu(x, approximate="tanh")


def get_init_inputs(**case):
    return []


def get_inputs(M=16, N=64, scale=2.0):
    return [torch.randn(M, N) * scale]
