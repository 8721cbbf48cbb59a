"""GroupNorm(G, C, eps) with per-channel affine weight and bias on [B, C, H, W]."""
import torch
import torch.nn as nn
import torch.nn.functional as F

OPERATOR = {"id": "group_norm", "family": "normalization"}
CASES = [
    {"tier": "compact", "B": 2, "C": 4, "G": 2, "H": 4, "W": 4},
    {"tier": "compact", "B": 2, "C": 8, "G": 4, "H": 8, "W": 8},
    {"tier": "full", "B": 1, "C": 1, "G": 1, "H": 1, "W": 2},
    {"tier": "full", "B": 3, "C": 6, "G": 3, "H": 5, "W": 7},
    {"tier": "full", "B": 2, "C": 6, "G": 2, "H": 10, "W": 11, "eps": 0.5},
    {"tier": "full", "B": 2, "C": 4, "G": 4, "H": 3, "W": 3},
]


class Model(nn.Module):
    def __init__(self, G, C, eps=1e-5):
        super().__init__()
        self.G = G
        self.eps = eps
        self.weight = nn.Parameter(torch.randn(C))
        self.bias = nn.Parameter(torch.randn(C))

    def forward(self, x):
        return F.group_norm(x, self.G, self.weight, self.bias, self.eps)


def get_init_inputs(G=2, C=4, eps=1e-5, **shape):
    return [G, C, eps]


def get_inputs(B=2, C=4, H=4, W=4, **params):
    return [torch.randn(B, C, H, W) * 2.0 + 0.5]
