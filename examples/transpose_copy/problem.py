"""Materialise the transpose of a 2-D tensor as a new contiguous tensor."""
import torch
import torch.nn as nn

OPERATOR = {"id": "transpose_copy", "family": "layout"}
CASES = [
    {"tier": "compact", "M": 32, "N": 64},
    {"tier": "compact", "M": 64, "N": 32},
    {"tier": "full", "M": 1, "N": 1},
    {"tier": "full", "M": 7, "N": 33},
    {"tier": "full", "M": 1, "N": 1000},
    {"tier": "full", "M": 100, "N": 3},
    {"tier": "full", "M": 45, "N": 130},
]


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return x.t().contiguous()


def get_init_inputs(**case):
    return []


def get_inputs(M=64, N=64):
    return [torch.randn(M, N)]
