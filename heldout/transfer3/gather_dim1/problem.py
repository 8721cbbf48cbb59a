"""torch.gather(x, 1, index): out[i, k] = x[i, index[i, k]] for x [M, N] and an int64 index [M, K]."""
import torch
import torch.nn as nn

OPERATOR = {"id": "gather_dim1", "family": "index"}
CASES = [
    {"tier": "compact", "M": 4, "N": 64, "K": 32},
    {"tier": "compact", "M": 8, "N": 128, "K": 64},
    {"tier": "full", "M": 1, "N": 1, "K": 1},
    {"tier": "full", "M": 7, "N": 33, "K": 50},
    {"tier": "full", "M": 40, "N": 100, "K": 17},
    {"tier": "full", "M": 3, "N": 1000, "K": 777},
    {"tier": "full", "M": 20, "N": 30, "K": 10, "x_layout": "transposed"},
]


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x, index):
        return torch.gather(x, 1, index)


def get_init_inputs(**case):
    return []


def get_inputs(M=16, N=256, K=128, x_layout="contiguous"):
    x = torch.randn(N, M).t() if x_layout == "transposed" else torch.randn(M, N)
    return [x, torch.randint(0, N, (M, K), dtype=torch.int64)]
