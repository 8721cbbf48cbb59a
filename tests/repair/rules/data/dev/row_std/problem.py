"""Standard deviation over the last dimension (torch.std's default, unbiased)."""
import torch
import torch.nn as nn

OPERATOR = {"id": "dev_row_std", "family": "reduction"}
CASES = [
    {"tier": "compact", "M": 4, "N": 128},
    {"tier": "compact", "M": 8, "N": 60},
    {"tier": "full", "M": 3, "N": 1000},
    {"tier": "full", "M": 2, "N": 3},
]


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return x.std(dim=-1)


def get_init_inputs(**case):
    return []


def get_inputs(M=8, N=128):
    return [torch.randn(M, N) * 3.0]
