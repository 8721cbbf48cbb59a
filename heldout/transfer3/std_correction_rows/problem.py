"""Standard deviation over the last dimension with a Bessel correction given to the constructor."""
import torch
import torch.nn as nn

OPERATOR = {"id": "std_correction_rows", "family": "reduction"}
CASES = [
    {"tier": "compact", "M": 4, "N": 64},
    {"tier": "compact", "M": 8, "N": 128},
    {"tier": "full", "M": 1, "N": 1, "correction": 0},
    {"tier": "full", "M": 5, "N": 1000},
    {"tier": "full", "M": 3, "N": 700, "offset": 300.0},
    {"tier": "full", "M": 6, "N": 129, "correction": 0},
    {"tier": "full", "M": 40, "N": 33, "correction": 2},
]


class Model(nn.Module):
    def __init__(self, correction=1):
        super().__init__()
        self.correction = correction

    def forward(self, x):
        return torch.std(x, dim=-1, correction=self.correction)


def get_init_inputs(correction=1, **shape):
    return [correction]


def get_inputs(M=16, N=512, offset=0.0, **params):
    return [torch.randn(M, N) * 2.0 + offset]
