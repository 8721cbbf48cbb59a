"""Reverse (suffix) cumulative sum over the last dimension: out[i, j] = sum of x[i, j:]."""
import torch
import torch.nn as nn

OPERATOR = {"id": "rev_cumsum_lastdim", "family": "scan"}
CASES = [
    {"tier": "compact", "M": 4, "N": 64},
    {"tier": "compact", "M": 8, "N": 128},
    {"tier": "full", "M": 1, "N": 1},
    {"tier": "full", "M": 3, "N": 1000},
    {"tier": "full", "M": 5, "N": 300},
    {"tier": "full", "M": 40, "N": 17},
    {"tier": "full", "M": 6, "N": 513},
]


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return torch.flip(torch.cumsum(torch.flip(x, dims=[-1]), dim=-1), dims=[-1])


def get_init_inputs(**case):
    return []


def get_inputs(M=16, N=512):
    return [torch.randn(M, N)]
