"""Softmax over the last dimension of a 2-D tensor."""
import torch
import torch.nn as nn

OPERATOR = {"id": "softmax_lastdim", "family": "softmax"}
CASES = [
    {"tier": "compact", "M": 4, "N": 64},
    {"tier": "compact", "M": 8, "N": 100},
    {"tier": "full", "M": 7, "N": 1},
    {"tier": "full", "M": 3, "N": 1000},
    {"tier": "full", "M": 2, "N": 1025},
    # Logits of magnitude ~100: exp() overflows fp32 unless the row max is subtracted first.
    {"tier": "full", "M": 4, "N": 256, "scale": 100.0},
]


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return torch.softmax(x, dim=-1)


def get_init_inputs(**case):
    return []


def get_inputs(M=64, N=1000, scale=1.0):
    return [torch.randn(M, N) * scale]
