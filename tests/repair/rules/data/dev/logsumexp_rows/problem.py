"""Log-sum-exp over the last dimension of a 2-D tensor."""
import torch
import torch.nn as nn

OPERATOR = {"id": "dev_logsumexp_rows", "family": "reduction"}
CASES = [
    {"tier": "compact", "M": 4, "N": 256},
    {"tier": "compact", "M": 8, "N": 100},
    {"tier": "full", "M": 3, "N": 1},
    {"tier": "full", "M": 5, "N": 1000, "scale": 100.0},
    {"tier": "full", "M": 6, "N": 333, "shift": -50.0},
]


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return torch.logsumexp(x, dim=-1)


def get_init_inputs(**case):
    return []


def get_inputs(M=16, N=256, scale=1.0, shift=0.0):
    return [torch.randn(M, N) * scale + shift]
