"""Row-wise L2 normalisation (F.normalize over the last dimension)."""
import torch
import torch.nn as nn
import torch.nn.functional as F

OPERATOR = {"id": "dev_mask_l2norm_rows", "family": "normalization"}
CASES = [
    {"tier": "compact", "M": 4, "N": 100},
    {"tier": "compact", "M": 3, "N": 128},
    {"tier": "full", "M": 5, "N": 1},
    {"tier": "full", "M": 6, "N": 257},
]


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return F.normalize(x, p=2.0, dim=-1, eps=1e-12)


def get_init_inputs(**case):
    return []


def get_inputs(M=4, N=100):
    return [torch.randn(M, N)]
