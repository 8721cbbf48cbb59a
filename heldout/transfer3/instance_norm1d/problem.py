"""Instance normalisation of [B, C, L] without affine parameters: each (b, c) row normalised over L."""
import torch
import torch.nn as nn
import torch.nn.functional as F

OPERATOR = {"id": "instance_norm1d", "family": "normalization"}
CASES = [
    {"tier": "compact", "B": 2, "C": 4, "L": 64},
    {"tier": "compact", "B": 4, "C": 8, "L": 128},
    {"tier": "full", "B": 1, "C": 1, "L": 3},
    {"tier": "full", "B": 2, "C": 3, "L": 1000},
    {"tier": "full", "B": 3, "C": 5, "L": 77, "eps": 0.1},
    {"tier": "full", "B": 4, "C": 16, "L": 33},
    {"tier": "full", "B": 2, "C": 6, "L": 50, "layout": "channels_inner"},
]


class Model(nn.Module):
    def __init__(self, eps=1e-5):
        super().__init__()
        self.eps = eps

    def forward(self, x):
        return F.instance_norm(x, eps=self.eps)


def get_init_inputs(eps=1e-5, **shape):
    return [eps]


def get_inputs(B=4, C=8, L=256, layout="contiguous", **params):
    x = torch.randn(B, L, C).transpose(1, 2) if layout == "channels_inner" else torch.randn(B, C, L)
    return [x * 1.5 + 0.5]
