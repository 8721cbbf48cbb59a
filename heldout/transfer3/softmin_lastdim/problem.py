"""Softmin over the last dimension of a 2-D tensor: softmax(-x, dim=-1)."""
import torch
import torch.nn as nn
import torch.nn.functional as F

OPERATOR = {"id": "softmin_lastdim", "family": "softmax"}
CASES = [
    {"tier": "compact", "M": 4, "N": 64},
    {"tier": "compact", "M": 16, "N": 128},
    {"tier": "full", "M": 1, "N": 1},
    {"tier": "full", "M": 3, "N": 1000},
    {"tier": "full", "M": 5, "N": 77, "scale": 100.0},
    {"tier": "full", "M": 7, "N": 200},
    {"tier": "full", "M": 33, "N": 20},
]


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return F.softmin(x, dim=-1)


def get_init_inputs(**case):
    return []


def get_inputs(M=32, N=512, scale=1.0):
    return [torch.randn(M, N) * scale]
