"""Unbiased variance (correction=1) over the last dimension of a 2-D tensor."""
import torch
import torch.nn as nn

OPERATOR = {"id": "var_unbiased", "family": "reduction"}
CASES = [
    {"tier": "compact", "M": 4, "N": 64},
    {"tier": "compact", "M": 8, "N": 256},
    {"tier": "full", "M": 7, "N": 1},
    {"tier": "full", "M": 5, "N": 2},
    {"tier": "full", "M": 6, "N": 33},
    {"tier": "full", "M": 3, "N": 1000},
    {"tier": "full", "M": 2, "N": 1025},
    # Rows centred near 1000 with unit spread: sum(x^2) - N * mean^2 cancels catastrophically in fp32.
    {"tier": "full", "M": 4, "N": 512, "offset": 1000.0},
]


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return torch.var(x, dim=-1, correction=1)


def get_init_inputs(**case):
    return []


def get_inputs(M=64, N=1000, offset=2.0):
    return [torch.randn(M, N) * 1.5 + offset]
