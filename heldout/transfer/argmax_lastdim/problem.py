"""Index of the maximum over the last dimension of a 2-D tensor (first index on ties)."""
import torch
import torch.nn as nn

OPERATOR = {"id": "argmax_lastdim", "family": "reduction"}
CASES = [
    {"tier": "compact", "M": 4, "N": 128},
    {"tier": "compact", "M": 8, "N": 512},
    {"tier": "full", "M": 7, "N": 1},
    {"tier": "full", "M": 3, "N": 1000},
    {"tier": "full", "M": 5, "N": 1025, "values": "negative"},
    {"tier": "full", "M": 6, "N": 33, "values": "negative"},
    # Small integers: the maximum occurs many times, in several column blocks.
    {"tier": "full", "M": 4, "N": 700, "values": "ties"},
    {"tier": "full", "M": 3, "N": 300, "values": "large"},
]


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return torch.argmax(x, dim=-1)


def get_init_inputs(**case):
    return []


def get_inputs(M=16, N=1000, values="mixed"):
    if values == "ties":
        return [torch.randint(-3, 4, (M, N)).float()]
    x = torch.randn(M, N)
    if values == "negative":  # every element < 0
        x = -x.abs() - 0.5
    elif values == "large":
        x = x * 1e4
    return [x]
