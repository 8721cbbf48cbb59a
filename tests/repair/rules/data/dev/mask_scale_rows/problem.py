"""Each row scaled by its own maximum absolute value."""
import torch
import torch.nn as nn

OPERATOR = {"id": "dev_mask_scale_rows", "family": "normalization"}
CASES = [
    {"tier": "compact", "M": 4, "N": 100},
    {"tier": "compact", "M": 50, "N": 20},
    {"tier": "full", "M": 6, "N": 1},
    {"tier": "full", "M": 50, "N": 257},
]


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return x / x.abs().amax(dim=-1, keepdim=True)


def get_init_inputs(**case):
    return []


def get_inputs(M=4, N=100):
    return [torch.randn(M, N)]
