"""Elementwise sum of two matrices of one shape."""
import torch
import torch.nn as nn

OPERATOR = {"id": "dev_mask_add_2d", "family": "elementwise"}
CASES = [
    {"tier": "compact", "M": 48, "N": 20},
    {"tier": "compact", "M": 32, "N": 40},
    {"tier": "full", "M": 1, "N": 7},
    {"tier": "full", "M": 33, "N": 70},
]


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x, y):
        return x + y


def get_init_inputs(**case):
    return []


def get_inputs(M=20, N=40):
    return [torch.randn(M, N), torch.randn(M, N)]
