"""Fused residual add + RMSNorm in fp32: h = x + residual; h * rsqrt(mean(h^2, -1) + eps) * weight on [M, N]."""
import torch
import torch.nn as nn

OPERATOR = {"id": "add_rmsnorm", "family": "fused"}
CASES = [
    {"tier": "compact", "M": 8, "N": 64},
    {"tier": "compact", "M": 16, "N": 128},
    {"tier": "full", "M": 1, "N": 1},
    {"tier": "full", "M": 7, "N": 100},
    {"tier": "full", "M": 13, "N": 300, "eps": 0.1, "scale": 0.2},
    {"tier": "full", "M": 5, "N": 33, "layout": "sliced"},
]


class Model(nn.Module):
    def __init__(self, N, eps=1e-6):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.rand(N) + 0.5)

    def forward(self, x, residual):
        h = x + residual
        return h * torch.rsqrt(h.pow(2).mean(-1, keepdim=True) + self.eps) * self.weight


def get_init_inputs(N=64, eps=1e-6, **shape):
    return [N, eps]


def get_inputs(M=8, N=64, scale=1.0, layout="contiguous", **params):
    if layout == "sliced":
        x = (torch.randn(M, N + 7) * scale)[:, 3:N + 3]
    else:
        x = torch.randn(M, N) * scale
    return [x, torch.randn(M, N) * scale]
