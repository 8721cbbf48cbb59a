"""Softmax over the channel dimension (dim=1) of a [B, C, L] tensor."""
import torch
import torch.nn as nn

OPERATOR = {"id": "softmax_dim1_3d", "family": "softmax"}
CASES = [
    {"tier": "compact", "B": 2, "C": 16, "L": 32},
    {"tier": "compact", "B": 4, "C": 8, "L": 64},
    {"tier": "full", "B": 1, "C": 1, "L": 1},
    {"tier": "full", "B": 2, "C": 10, "L": 50},
    {"tier": "full", "B": 3, "C": 33, "L": 7},
    {"tier": "full", "B": 2, "C": 5, "L": 130},
    {"tier": "full", "B": 2, "C": 12, "L": 40, "layout": "channels_last"},
]


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return torch.softmax(x, dim=1)


def get_init_inputs(**case):
    return []


def get_inputs(B=8, C=32, L=128, layout="contiguous"):
    x = torch.randn(B, L, C).transpose(1, 2) if layout == "channels_last" else torch.randn(B, C, L)
    return [x * 2.0]
