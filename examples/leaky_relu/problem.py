"""Leaky ReLU with a configurable negative slope."""
import torch
import torch.nn as nn
import torch.nn.functional as F

OPERATOR = {"id": "leaky_relu", "family": "elementwise"}
CASES = [
    {"tier": "compact", "M": 32, "N": 64},
    {"tier": "compact", "M": 16, "N": 100},
    {"tier": "full", "M": 1, "N": 1},
    {"tier": "full", "M": 7, "N": 1000},
    {"tier": "full", "M": 3, "N": 1025, "negative_slope": 0.2},
    {"tier": "full", "M": 9, "N": 31, "negative_slope": 0.5},
]


class Model(nn.Module):
    def __init__(self, negative_slope=0.01):
        super().__init__()
        self.negative_slope = negative_slope

    def forward(self, x):
        return F.leaky_relu(x, self.negative_slope)


def get_init_inputs(negative_slope=0.01, **shape):
    return [negative_slope]


def get_inputs(M=64, N=1000, **params):
    return [torch.randn(M, N)]
