"""Per-row range max(x) - min(x) over the last dimension of a 2-D tensor (torch.amax - torch.amin)."""
import torch
import torch.nn as nn

OPERATOR = {"id": "peak_to_peak_rows", "family": "reduction"}
CASES = [
    {"tier": "compact", "M": 4, "N": 64},
    {"tier": "compact", "M": 8, "N": 256},
    {"tier": "full", "M": 1, "N": 1},
    {"tier": "full", "M": 5, "N": 1000},
    {"tier": "full", "M": 3, "N": 333, "shift": 4.0},
    {"tier": "full", "M": 6, "N": 129, "shift": -4.0},
    {"tier": "full", "M": 40, "N": 50},
]


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return torch.amax(x, dim=-1) - torch.amin(x, dim=-1)


def get_init_inputs(**case):
    return []


def get_inputs(M=16, N=512, shift=0.0):
    # a shift moves whole rows to one side of zero (all positive or all negative)
    return [torch.randn(M, N) * 0.5 + shift]
