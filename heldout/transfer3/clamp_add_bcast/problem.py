"""clamp(x + bias, min_val, max_val): x is [M, N], bias is a row vector [N] broadcast over the rows."""
import torch
import torch.nn as nn

OPERATOR = {"id": "clamp_add_bcast", "family": "elementwise"}
CASES = [
    {"tier": "compact", "M": 4, "N": 64},
    {"tier": "compact", "M": 8, "N": 128},
    {"tier": "full", "M": 1, "N": 1},
    {"tier": "full", "M": 7, "N": 33},
    {"tier": "full", "M": 3, "N": 1000},
    {"tier": "full", "M": 60, "N": 40, "min_val": -0.25, "max_val": 2.0},
    {"tier": "full", "M": 33, "N": 65, "x_layout": "transposed"},
]


class Model(nn.Module):
    def __init__(self, min_val=-1.0, max_val=1.0):
        super().__init__()
        self.min_val = min_val
        self.max_val = max_val

    def forward(self, x, bias):
        return torch.clamp(x + bias, self.min_val, self.max_val)


def get_init_inputs(min_val=-1.0, max_val=1.0, **shape):
    return [min_val, max_val]


def get_inputs(M=64, N=256, x_layout="contiguous", **params):
    x = 1.5 * (torch.randn(N, M).t() if x_layout == "transposed" else torch.randn(M, N))
    return [x, torch.randn(N)]
