"""SwiGLU gate: x of shape [M, 2H] split into halves a | b along the last dim, out = silu(a) * b."""
import torch
import torch.nn as nn
import torch.nn.functional as F

OPERATOR = {"id": "silu_and_mul", "family": "activation"}
CASES = [
    {"tier": "compact", "M": 4, "H": 128},
    {"tier": "compact", "M": 16, "H": 256},
    {"tier": "full", "M": 1, "H": 1},
    {"tier": "full", "M": 7, "H": 33},
    {"tier": "full", "M": 3, "H": 1000},
    {"tier": "full", "M": 2, "H": 1025},
    # Gate pre-activations of magnitude ~100: exp(a) overflows fp32 for a > 88.
    {"tier": "full", "M": 4, "H": 256, "scale": 100.0},
]


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        a, b = x.chunk(2, dim=-1)
        return F.silu(a) * b


def get_init_inputs(**case):
    return []


def get_inputs(M=16, H=1024, scale=1.0):
    return [torch.randn(M, 2 * H) * scale]
