"""Inclusive prefix sum over the last dimension of a 2-D tensor (which may be a transposed view)."""
import torch
import torch.nn as nn

OPERATOR = {"id": "cumsum_lastdim", "family": "scan"}
CASES = [
    {"tier": "compact", "M": 4, "N": 64},
    {"tier": "compact", "M": 8, "N": 256},
    {"tier": "full", "M": 7, "N": 1},
    {"tier": "full", "M": 3, "N": 1000},
    {"tier": "full", "M": 5, "N": 1025},
    {"tier": "full", "M": 9, "N": 33},
    # A transposed view: rows are not contiguous in memory.
    {"tier": "full", "M": 6, "N": 300, "layout": "transposed"},
]


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return torch.cumsum(x, dim=-1)


def get_init_inputs(**case):
    return []


def get_inputs(M=16, N=1000, layout="contiguous"):
    if layout == "transposed":
        return [torch.randn(N, M).t()]
    return [torch.randn(M, N)]
