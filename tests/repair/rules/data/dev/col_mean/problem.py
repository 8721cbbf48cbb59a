"""Mean over the first dimension of a 2-D tensor (one value per column)."""
import torch
import torch.nn as nn

OPERATOR = {"id": "dev_col_mean", "family": "reduction"}
CASES = [
    {"tier": "compact", "M": 64, "N": 32},
    {"tier": "compact", "M": 32, "N": 64},
    {"tier": "full", "M": 1, "N": 1},
    {"tier": "full", "M": 100, "N": 40},
    {"tier": "full", "M": 37, "N": 129},
]


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return x.mean(dim=0)


def get_init_inputs(**case):
    return []


def get_inputs(M=64, N=32):
    return [torch.randn(M, N)]
