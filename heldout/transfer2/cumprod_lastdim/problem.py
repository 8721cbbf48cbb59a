"""torch.cumprod over the last dim of [M, N]; entries of both signs near magnitude 1; x may be transposed."""
import torch
import torch.nn as nn

OPERATOR = {"id": "cumprod_lastdim", "family": "scan"}
CASES = [
    {"tier": "compact", "M": 4, "N": 64},
    {"tier": "compact", "M": 8, "N": 32},
    {"tier": "full", "M": 1, "N": 1},
    {"tier": "full", "M": 3, "N": 200},
    {"tier": "full", "M": 5, "N": 129},
    {"tier": "full", "M": 4, "N": 100, "layout": "transposed"},
]


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return torch.cumprod(x, dim=-1)


def get_init_inputs(**case):
    return []


def get_inputs(M=4, N=64, layout="contiguous"):
    shape = (N, M) if layout == "transposed" else (M, N)
    x = torch.empty(shape).uniform_(0.9, 1.1) * torch.where(torch.rand(shape) < 0.5, -1.0, 1.0)
    return [x.t() if layout == "transposed" else x]
