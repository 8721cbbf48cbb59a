"""Reverse the order of the rows (torch.flip over dim 0)."""
import torch
import torch.nn as nn

OPERATOR = {"id": "dev_mask_flip_rows", "family": "layout"}
CASES = [
    {"tier": "compact", "M": 4, "N": 100},
    {"tier": "compact", "M": 3, "N": 60},
    {"tier": "full", "M": 5, "N": 1},
    {"tier": "full", "M": 6, "N": 300},
]


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return torch.flip(x, dims=[0])


def get_init_inputs(**case):
    return []


def get_inputs(M=4, N=100):
    return [torch.randn(M, N)]
