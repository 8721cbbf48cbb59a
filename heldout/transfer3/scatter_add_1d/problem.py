"""Scatter-add of src into num_bins bins: out = zeros(num_bins).scatter_add(0, index, src), index with repeats."""
import torch
import torch.nn as nn

OPERATOR = {"id": "scatter_add_1d", "family": "atomic"}
CASES = [
    {"tier": "compact", "n": 1024, "num_bins": 64},
    {"tier": "compact", "n": 4096, "num_bins": 256},
    {"tier": "full", "n": 1, "num_bins": 1},
    {"tier": "full", "n": 1000, "num_bins": 10},
    {"tier": "full", "n": 3333, "num_bins": 1000},
    {"tier": "full", "n": 30000, "num_bins": 7},
]


class Model(nn.Module):
    def __init__(self, num_bins=64):
        super().__init__()
        self.num_bins = num_bins

    def forward(self, src, index):
        out = torch.zeros(self.num_bins, dtype=src.dtype, device=src.device)
        return out.scatter_add(0, index, src)


def get_init_inputs(num_bins=64, **shape):
    return [num_bins]


def get_inputs(n=4096, num_bins=64):
    return [torch.randn(n), torch.randint(0, num_bins, (n,), dtype=torch.int64)]
