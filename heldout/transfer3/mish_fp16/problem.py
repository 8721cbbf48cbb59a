"""Mish activation x * tanh(softplus(x)) on a half-precision tensor (math in fp32, result in fp16)."""
import torch
import torch.nn as nn
import torch.nn.functional as F

OPERATOR = {"id": "mish_fp16", "family": "elementwise"}
CASES = [
    {"tier": "compact", "M": 4, "N": 256},
    {"tier": "compact", "M": 16, "N": 64},
    {"tier": "full", "M": 1, "N": 1},
    {"tier": "full", "M": 3, "N": 1000},
    {"tier": "full", "M": 7, "N": 333, "scale": 30.0},
    {"tier": "full", "M": 50, "N": 77},
]


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return F.mish(x.float()).to(x.dtype)


def get_init_inputs(**case):
    return []


def get_inputs(M=64, N=1024, scale=3.0):
    return [(scale * torch.randn(M, N)).half()]
