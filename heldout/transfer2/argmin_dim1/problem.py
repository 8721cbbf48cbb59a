"""torch.argmin over the middle dim of a [B, N, D] tensor (first index on ties); x may be a permuted view."""
import torch
import torch.nn as nn

OPERATOR = {"id": "argmin_dim1", "family": "reduction"}
CASES = [
    {"tier": "compact", "B": 2, "N": 32, "D": 16},
    {"tier": "compact", "B": 4, "N": 16, "D": 8},
    {"tier": "full", "B": 1, "N": 1, "D": 1},
    {"tier": "full", "B": 3, "N": 100, "D": 20},
    {"tier": "full", "B": 2, "N": 45, "D": 7, "values": "positive"},
    {"tier": "full", "B": 2, "N": 70, "D": 9, "values": "ties"},
    {"tier": "full", "B": 2, "N": 40, "D": 18, "layout": "permuted"},
]


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return torch.argmin(x, dim=1)


def get_init_inputs(**case):
    return []


def get_inputs(B=2, N=32, D=16, values="normal", layout="contiguous"):
    shape = (B, D, N) if layout == "permuted" else (B, N, D)
    if values == "positive":
        x = torch.rand(shape) + 0.5
    elif values == "ties":
        x = torch.randint(0, 3, shape).float()
    else:
        x = torch.randn(shape)
    return [x.transpose(1, 2) if layout == "permuted" else x]
