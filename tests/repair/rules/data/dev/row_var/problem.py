"""Unbiased variance over the last dimension of a 2-D tensor (torch.var's default)."""
import torch
import torch.nn as nn

OPERATOR = {"id": "dev_row_var", "family": "reduction"}
CASES = [
    {"tier": "compact", "M": 4, "N": 256},
    {"tier": "compact", "M": 8, "N": 64},
    {"tier": "full", "M": 3, "N": 1000},
    {"tier": "full", "M": 5, "N": 2},
]


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return torch.var(x, dim=-1)


def get_init_inputs(**case):
    return []


def get_inputs(M=8, N=256):
    return [torch.randn(M, N) * 2.0 + 1.0]
