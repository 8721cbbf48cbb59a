"""torch.addcmul with broadcasting: a [M, N] + value * b [N] * c [M, 1]; a may be a transposed view."""
import torch
import torch.nn as nn

OPERATOR = {"id": "bcast_addcmul", "family": "elementwise"}
CASES = [
    {"tier": "compact", "M": 16, "N": 32},
    {"tier": "compact", "M": 8, "N": 64},
    {"tier": "full", "M": 1, "N": 1},
    {"tier": "full", "M": 7, "N": 45, "value": 0.5},
    {"tier": "full", "M": 33, "N": 70, "value": -2.0},
    {"tier": "full", "M": 20, "N": 24, "a_layout": "transposed"},
]


class Model(nn.Module):
    def __init__(self, value=1.0):
        super().__init__()
        self.value = value

    def forward(self, a, b, c):
        return torch.addcmul(a, b, c, value=self.value)


def get_init_inputs(value=1.0, **shape):
    return [value]


def get_inputs(M=16, N=32, a_layout="contiguous", **params):
    a = torch.randn(N, M).t() if a_layout == "transposed" else torch.randn(M, N)
    return [a, torch.randn(N), torch.randn(M, 1)]
