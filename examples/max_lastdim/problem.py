"""Maximum over the last dimension of a 2-D tensor (values only)."""
import torch
import torch.nn as nn

OPERATOR = {"id": "max_lastdim", "family": "reduction"}
CASES = [
    {"tier": "compact", "M": 4, "N": 256},
    {"tier": "compact", "M": 4, "N": 128, "sign": "negative"},
    {"tier": "full", "M": 7, "N": 1, "sign": "negative"},
    {"tier": "full", "M": 3, "N": 1000},
    {"tier": "full", "M": 5, "N": 1025, "sign": "negative"},
    {"tier": "full", "M": 6, "N": 300, "sign": "negative"},
]


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return torch.amax(x, dim=-1)


def get_init_inputs(**case):
    return []


def get_inputs(M=64, N=1000, sign="mixed"):
    x = torch.randn(M, N)
    if sign == "negative":  # every element < 0: a reduction padded with 0 gets these rows wrong
        x = -x.abs() - 0.1
    return [x]
