"""Softmax over the last dimension of a 2-D tensor (rows longer than one block)."""
import torch
import torch.nn as nn

OPERATOR = {"id": "dev_online_softmax", "family": "softmax"}
CASES = [
    {"tier": "compact", "M": 4, "N": 256},
    {"tier": "compact", "M": 3, "N": 200, "spread": 20.0},
    {"tier": "full", "M": 5, "N": 1000, "spread": 20.0},
    {"tier": "full", "M": 2, "N": 777, "shift": -200.0},
    {"tier": "full", "M": 6, "N": 1},
]


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return torch.softmax(x, dim=-1)


def get_init_inputs(**case):
    return []


def get_inputs(M=8, N=256, spread=1.0, shift=0.0):
    x = torch.randn(M, N) + shift
    # a rising ramp: the running max grows chunk after chunk
    return [x + torch.linspace(0.0, spread, N)]
