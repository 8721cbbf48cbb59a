"""Maximum over the last dimension (values only), rows of one sign."""
import torch
import torch.nn as nn

OPERATOR = {"id": "dev_mask_rowmax_tiles", "family": "reduction"}
CASES = [
    {"tier": "compact", "M": 8, "N": 50, "sign": "negative"},
    {"tier": "compact", "M": 5, "N": 64},
    {"tier": "full", "M": 3, "N": 1, "sign": "negative"},
    {"tier": "full", "M": 17, "N": 33, "sign": "negative"},
]


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return torch.amax(x, dim=1)


def get_init_inputs(**case):
    return []


def get_inputs(M=8, N=50, sign="mixed"):
    x = torch.randn(M, N)
    if sign == "negative":
        x = -x.abs() - 0.5
    return [x]
