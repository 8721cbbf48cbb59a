"""torch.prod over the last dim of [M, N]; entries of both signs near magnitude 1; x may be a column slice."""
import torch
import torch.nn as nn

OPERATOR = {"id": "prod_lastdim", "family": "reduction"}
CASES = [
    {"tier": "compact", "M": 4, "N": 64},
    {"tier": "compact", "M": 8, "N": 128},
    {"tier": "full", "M": 1, "N": 1},
    {"tier": "full", "M": 7, "N": 100},
    {"tier": "full", "M": 3, "N": 300},
    {"tier": "full", "M": 5, "N": 50, "layout": "sliced"},
]


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return torch.prod(x, dim=-1)


def get_init_inputs(**case):
    return []


def get_inputs(M=4, N=64, layout="contiguous"):
    cols = 2 * N + 3 if layout == "sliced" else N
    mag = torch.empty(M, cols).uniform_(0.9, 1.1)
    sign = torch.where(torch.rand(M, cols) < 0.5, -1.0, 1.0)
    x = mag * sign
    return [x[:, 1:N + 1] if layout == "sliced" else x]
