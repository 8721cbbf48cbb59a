"""Softmax over the last dimension, several rows per program."""
import torch
import torch.nn as nn

OPERATOR = {"id": "dev_softmax_tile", "family": "softmax"}
CASES = [
    {"tier": "compact", "M": 16, "N": 64},
    {"tier": "compact", "M": 8, "N": 50},
    {"tier": "full", "M": 7, "N": 1000, "scale": 50.0},
    {"tier": "full", "M": 5, "N": 33},
]


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return torch.softmax(x, dim=1)


def get_init_inputs(**case):
    return []


def get_inputs(M=16, N=64, scale=1.0):
    return [torch.randn(M, N) * scale]
