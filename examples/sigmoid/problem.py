"""Elementwise logistic sigmoid."""
import torch
import torch.nn as nn

OPERATOR = {"id": "sigmoid", "family": "elementwise"}
CASES = [
    {"tier": "compact", "M": 32, "N": 64},
    {"tier": "compact", "M": 8, "N": 100},
    {"tier": "full", "M": 1, "N": 1},
    {"tier": "full", "M": 7, "N": 1000},
    {"tier": "full", "M": 3, "N": 1025},
    # Inputs of magnitude ~100: exp(x) overflows fp32 above x = 88.7.
    {"tier": "full", "M": 4, "N": 256, "scale": 100.0},
]


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return torch.sigmoid(x)


def get_init_inputs(**case):
    return []


def get_inputs(M=64, N=1000, scale=1.0):
    return [torch.randn(M, N) * scale]
