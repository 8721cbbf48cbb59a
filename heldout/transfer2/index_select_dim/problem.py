"""torch.index_select(x [R, S], dim, idx) with repeated indices; dim is a constructor argument (may be negative)."""
import torch
import torch.nn as nn

OPERATOR = {"id": "index_select_dim", "family": "indexing"}
CASES = [
    {"tier": "compact", "R": 16, "S": 32, "n_idx": 8},
    {"tier": "compact", "R": 32, "S": 16, "n_idx": 16},
    {"tier": "full", "R": 1, "S": 1, "n_idx": 3, "dim": 1},
    {"tier": "full", "R": 10, "S": 40, "n_idx": 7, "dim": 1},
    {"tier": "full", "R": 50, "S": 33, "n_idx": 70},
    {"tier": "full", "R": 12, "S": 30, "n_idx": 20, "dim": -1},
    {"tier": "full", "R": 20, "S": 30, "n_idx": 5, "layout": "transposed"},
]


class Model(nn.Module):
    def __init__(self, dim=0):
        super().__init__()
        self.dim = dim

    def forward(self, x, idx):
        return torch.index_select(x, self.dim, idx)


def get_init_inputs(dim=0, **shape):
    return [dim]


def get_inputs(R=16, S=32, n_idx=8, dim=0, layout="contiguous", **params):
    x = torch.randn(S, R).t() if layout == "transposed" else torch.randn(R, S)
    size = R if dim == 0 else S
    return [x, torch.randint(0, size, (n_idx,))]
