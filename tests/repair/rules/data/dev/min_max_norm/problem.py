"""Min-max normalisation of each row: (x - min) / (max - min)."""
import torch
import torch.nn as nn

OPERATOR = {"id": "dev_min_max_norm", "family": "normalization"}
CASES = [
    {"tier": "compact", "M": 4, "N": 256},
    {"tier": "compact", "M": 4, "N": 100, "offset": 5.0},
    {"tier": "full", "M": 3, "N": 1000, "offset": 5.0},
    {"tier": "full", "M": 6, "N": 77, "offset": -5.0},
]


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        lo = x.amin(dim=-1, keepdim=True)
        hi = x.amax(dim=-1, keepdim=True)
        return (x - lo) / (hi - lo)


def get_init_inputs(**case):
    return []


def get_inputs(M=8, N=256, offset=0.0):
    return [torch.rand(M, N) + offset]
