"""Softplus with a configurable beta and threshold."""
import torch
import torch.nn as nn
import torch.nn.functional as F

OPERATOR = {"id": "dev_softplus_beta", "family": "elementwise"}
CASES = [
    {"tier": "compact", "M": 16, "N": 64},
    {"tier": "compact", "M": 8, "N": 100},
    {"tier": "full", "M": 3, "N": 1000, "scale": 60.0},
    {"tier": "full", "M": 5, "N": 33, "beta": 2.0},
    {"tier": "full", "M": 1, "N": 1},
]


class Model(nn.Module):
    def __init__(self, beta=1.0, threshold=20.0):
        super().__init__()
        self.beta = beta
        self.threshold = threshold

    def forward(self, x):
        return F.softplus(x, beta=self.beta, threshold=self.threshold)


def get_init_inputs(beta=1.0, threshold=20.0, **case):
    return [beta, threshold]


def get_inputs(M=16, N=64, scale=3.0, **params):
    return [torch.randn(M, N) * scale]
