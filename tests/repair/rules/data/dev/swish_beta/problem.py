"""Swish with a constructor beta: x * sigmoid(beta * x)."""
import torch
import torch.nn as nn

OPERATOR = {"id": "dev_swish_beta", "family": "elementwise"}
CASES = [
    {"tier": "compact", "M": 16, "N": 64},
    {"tier": "compact", "M": 3, "N": 100},
    {"tier": "full", "M": 4, "N": 1000, "scale": 50.0},
    {"tier": "full", "M": 5, "N": 31, "beta": 1.7},
]


class Model(nn.Module):
    def __init__(self, beta=1.0):
        super().__init__()
        self.beta = beta

    def forward(self, x):
        return x * torch.sigmoid(self.beta * x)


def get_init_inputs(beta=1.0, **case):
    return [beta]


def get_inputs(M=16, N=64, scale=2.0, **params):
    return [torch.randn(M, N) * scale]
