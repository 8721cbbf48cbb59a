"""PReLU with one learned slope per channel on [B, C, L] (slopes differ per channel)."""
import torch
import torch.nn as nn
import torch.nn.functional as F

OPERATOR = {"id": "prelu_channel", "family": "activation"}
CASES = [
    {"tier": "compact", "B": 2, "C": 4, "L": 32},
    {"tier": "compact", "B": 4, "C": 8, "L": 16},
    {"tier": "full", "B": 1, "C": 1, "L": 1},
    {"tier": "full", "B": 3, "C": 5, "L": 37},
    {"tier": "full", "B": 2, "C": 7, "L": 300},
    {"tier": "full", "B": 5, "C": 3, "L": 11},
]


class Model(nn.Module):
    def __init__(self, C):
        super().__init__()
        self.weight = nn.Parameter(torch.rand(C) * 0.5)

    def forward(self, x):
        return F.prelu(x, self.weight)


def get_init_inputs(C=4, **shape):
    return [C]


def get_inputs(B=2, C=4, L=32, **params):
    return [torch.randn(B, C, L)]
