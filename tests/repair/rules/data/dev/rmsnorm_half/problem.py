"""RMSNorm over the last dimension of a half-precision 2-D tensor, with a learned weight."""
import torch
import torch.nn as nn

OPERATOR = {"id": "dev_rmsnorm_half", "family": "normalization"}
CASES = [
    {"tier": "compact", "M": 4, "N": 128},
    {"tier": "compact", "M": 8, "N": 64, "scale": 300.0},
    {"tier": "full", "M": 3, "N": 1000},
    {"tier": "full", "M": 5, "N": 100, "scale": 1e-3},
    {"tier": "full", "M": 2, "N": 700, "eps": 1e-2},
]


class Model(nn.Module):
    def __init__(self, N, eps=1e-6):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.randn(N).half())

    def forward(self, x):
        xf = x.float()
        rms = torch.rsqrt(xf.pow(2).mean(dim=-1, keepdim=True) + self.eps)
        return (xf * rms * self.weight.float()).half()


def get_init_inputs(N=128, eps=1e-6, **case):
    return [N, eps]


def get_inputs(M=8, N=128, scale=1.0, **params):
    return [(torch.randn(M, N) * scale).half()]
