"""Column min-max scaling of [M, N]: (x - min over rows) / (max over rows - min over rows + eps)."""
import torch
import torch.nn as nn

OPERATOR = {"id": "col_minmax_scale", "family": "normalization"}
CASES = [
    {"tier": "compact", "M": 32, "N": 16},
    {"tier": "compact", "M": 64, "N": 128},
    {"tier": "full", "M": 1, "N": 1},
    {"tier": "full", "M": 7, "N": 33},
    {"tier": "full", "M": 100, "N": 20, "shift": 3.0},
    {"tier": "full", "M": 45, "N": 130, "shift": -3.0},
    {"tier": "full", "M": 50, "N": 40, "layout": "transposed"},
]


class Model(nn.Module):
    def __init__(self, eps=1e-6):
        super().__init__()
        self.eps = eps

    def forward(self, x):
        lo = x.amin(dim=0, keepdim=True)
        hi = x.amax(dim=0, keepdim=True)
        return (x - lo) / (hi - lo + self.eps)


def get_init_inputs(eps=1e-6, **shape):
    return [eps]


def get_inputs(M=64, N=64, shift=0.0, layout="contiguous"):
    x = torch.randn(N, M).t() if layout == "transposed" else torch.randn(M, N)
    # a shift puts whole columns on one side of zero
    return [x * 0.5 + shift]
