"""LayerNorm over the last dimension of [M, N] with an elementwise weight and bias and a configurable eps."""
import torch
import torch.nn as nn
import torch.nn.functional as F

OPERATOR = {"id": "layernorm", "family": "normalization"}
CASES = [
    {"tier": "compact", "M": 4, "N": 64},
    {"tier": "compact", "M": 8, "N": 256},
    {"tier": "full", "M": 7, "N": 1},
    {"tier": "full", "M": 3, "N": 1000},
    {"tier": "full", "M": 5, "N": 1025},
    {"tier": "full", "M": 6, "N": 33, "eps": 0.1},
    {"tier": "full", "M": 4, "N": 512, "eps": 0.01},
    # Rows with a large common offset: E[x^2] - E[x]^2 cancels catastrophically in fp32.
    {"tier": "full", "M": 4, "N": 256, "shift": 100.0},
]


class Model(nn.Module):
    def __init__(self, N, eps=1e-5):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.randn(N))
        self.bias = nn.Parameter(torch.randn(N))

    def forward(self, x):
        return F.layer_norm(x, (x.shape[-1],), self.weight, self.bias, self.eps)


def get_init_inputs(N=1024, eps=1e-5, **shape):
    return [N, eps]


def get_inputs(M=16, N=1024, shift=1.0, **params):
    return [torch.randn(M, N) * 2.0 + shift]
