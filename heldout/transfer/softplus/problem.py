"""Softplus with beta and threshold (torch.nn.Softplus): log(1 + exp(beta * x)) / beta, linear once beta * x > threshold."""
import torch
import torch.nn as nn

OPERATOR = {"id": "softplus", "family": "activation"}
CASES = [
    {"tier": "compact", "M": 32, "N": 64},
    {"tier": "compact", "M": 16, "N": 100},
    {"tier": "full", "M": 1, "N": 1},
    {"tier": "full", "M": 7, "N": 1000},
    {"tier": "full", "M": 3, "N": 1025, "beta": 2.0},
    {"tier": "full", "M": 9, "N": 31, "beta": 0.5, "threshold": 1.0},
    # Inputs of magnitude ~100: exp(beta * x) overflows fp32 unless the linear branch takes over.
    {"tier": "full", "M": 4, "N": 256, "scale": 100.0},
]


class Model(nn.Module):
    def __init__(self, beta=1.0, threshold=20.0):
        super().__init__()
        self.act = nn.Softplus(beta=beta, threshold=threshold)

    def forward(self, x):
        return self.act(x)


def get_init_inputs(beta=1.0, threshold=20.0, **shape):
    return [beta, threshold]


def get_inputs(M=64, N=1000, scale=2.0, **params):
    return [torch.randn(M, N) * scale]
