"""Scale then clamp: clamp(x * scale, min_val, max_val), all three set at construction."""
import torch
import torch.nn as nn

OPERATOR = {"id": "dev_clamp_scale", "family": "elementwise"}
CASES = [
    {"tier": "compact", "M": 16, "N": 64},
    {"tier": "compact", "M": 8, "N": 100, "min_val": -0.25, "max_val": 2.0},
    {"tier": "full", "M": 3, "N": 1000, "scale": 3.0},
    {"tier": "full", "M": 1, "N": 1},
]


class Model(nn.Module):
    def __init__(self, scale=0.5, min_val=-1.0, max_val=1.0):
        super().__init__()
        self.scale = scale
        self.min_val = min_val
        self.max_val = max_val

    def forward(self, x):
        return torch.clamp(x * self.scale, self.min_val, self.max_val)


def get_init_inputs(scale=0.5, min_val=-1.0, max_val=1.0, **case):
    return [scale, min_val, max_val]


def get_inputs(M=16, N=64, **params):
    return [torch.randn(M, N) * 2.0]
