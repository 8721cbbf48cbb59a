"""Scale each row of a 2-D tensor (which may be a transposed view) by its own factor."""
import torch
import torch.nn as nn

OPERATOR = {"id": "dev_scale_rows_2d", "family": "elementwise"}
CASES = [
    {"tier": "compact", "M": 8, "N": 64},
    {"tier": "compact", "M": 4, "N": 100},
    {"tier": "full", "M": 7, "N": 300, "layout": "transposed"},
    {"tier": "full", "M": 1, "N": 1},
]


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x, s):
        return x * s[:, None]


def get_init_inputs(**case):
    return []


def get_inputs(M=8, N=64, layout="contiguous"):
    x = torch.randn(N, M).t() if layout == "transposed" else torch.randn(M, N)
    return [x, torch.randn(M)]
