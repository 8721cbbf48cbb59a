"""Per-channel affine transform x * weight + bias on [B, C, L], weight and bias broadcast over B and L."""
import torch
import torch.nn as nn

OPERATOR = {"id": "affine_scale_shift", "family": "normalization"}
CASES = [
    {"tier": "compact", "B": 2, "C": 4, "L": 64},
    {"tier": "compact", "B": 4, "C": 8, "L": 32},
    {"tier": "full", "B": 1, "C": 1, "L": 1},
    {"tier": "full", "B": 3, "C": 5, "L": 7},
    {"tier": "full", "B": 2, "C": 3, "L": 1000},
    {"tier": "full", "B": 5, "C": 7, "L": 129},
]


class Model(nn.Module):
    def __init__(self, C):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(C))
        self.bias = nn.Parameter(torch.randn(C))

    def forward(self, x):
        return x * self.weight[None, :, None] + self.bias[None, :, None]


def get_init_inputs(C=16, **shape):
    return [C]


def get_inputs(B=8, C=16, L=256):
    return [torch.randn(B, C, L)]
