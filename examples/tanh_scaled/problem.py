"""Scaled tanh a * tanh(b * x), with a and b constructor arguments."""
import torch
import torch.nn as nn

OPERATOR = {"id": "tanh_scaled", "family": "elementwise"}
CASES = [
    {"tier": "compact", "M": 32, "N": 64},
    {"tier": "compact", "M": 16, "N": 100, "a": 2.0, "b": 0.5},
    {"tier": "full", "M": 1, "N": 1},
    {"tier": "full", "M": 7, "N": 1000},
    {"tier": "full", "M": 3, "N": 1025, "a": 0.5, "b": 3.0},
    # Large arguments: a naive (e^2z - 1) / (e^2z + 1) overflows.
    {"tier": "full", "M": 4, "N": 256, "scale": 100.0},
]


class Model(nn.Module):
    def __init__(self, a=1.7159, b=0.6667):
        super().__init__()
        self.a = a
        self.b = b

    def forward(self, x):
        return self.a * torch.tanh(self.b * x)


def get_init_inputs(a=1.7159, b=0.6667, **shape):
    return [a, b]


def get_inputs(M=64, N=1000, scale=1.0, **params):
    return [torch.randn(M, N) * scale]
