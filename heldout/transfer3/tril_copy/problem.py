"""Lower triangle of a 2-D tensor, torch.tril(x, diagonal), with the diagonal offset given to the constructor."""
import torch
import torch.nn as nn

OPERATOR = {"id": "tril_copy", "family": "layout"}
CASES = [
    {"tier": "compact", "M": 32, "N": 32},
    {"tier": "compact", "M": 64, "N": 32},
    {"tier": "full", "M": 1, "N": 1},
    {"tier": "full", "M": 7, "N": 33},
    {"tier": "full", "M": 45, "N": 130, "diagonal": -3},
    {"tier": "full", "M": 50, "N": 40, "diagonal": 5},
    {"tier": "full", "M": 33, "N": 65, "layout": "transposed"},
]


class Model(nn.Module):
    def __init__(self, diagonal=0):
        super().__init__()
        self.diagonal = diagonal

    def forward(self, x):
        return torch.tril(x, self.diagonal)


def get_init_inputs(diagonal=0, **shape):
    return [diagonal]


def get_inputs(M=64, N=64, layout="contiguous", **params):
    x = torch.randn(N, M).t() if layout == "transposed" else torch.randn(M, N)
    return [x]
