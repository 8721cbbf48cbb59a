"""Row L2 normalisation of [M, N]: x / max(||x||_2, eps) over the last dimension (F.normalize, p=2)."""
import torch
import torch.nn as nn
import torch.nn.functional as F

OPERATOR = {"id": "l2_normalize", "family": "normalization"}
CASES = [
    {"tier": "compact", "M": 4, "N": 64},
    {"tier": "compact", "M": 8, "N": 256},
    {"tier": "full", "M": 7, "N": 1},
    {"tier": "full", "M": 3, "N": 1000},
    {"tier": "full", "M": 5, "N": 1025},
    {"tier": "full", "M": 6, "N": 33, "eps": 0.5},
    # Rows whose norm is below eps: the result is x / eps.
    {"tier": "full", "M": 4, "N": 16, "eps": 0.1, "scale": 0.001},
    # fp16 rows whose sum of squares exceeds the fp16 range (65504).
    {"tier": "full", "M": 4, "N": 512, "scale": 16.0, "dtype": "float16"},
]


class Model(nn.Module):
    def __init__(self, eps=1e-12):
        super().__init__()
        self.eps = eps

    def forward(self, x):
        return F.normalize(x, p=2.0, dim=-1, eps=self.eps)


def get_init_inputs(eps=1e-12, **shape):
    return [eps]


def get_inputs(M=16, N=1000, scale=1.0, dtype="float32", **params):
    return [(torch.randn(M, N) * scale).to(getattr(torch, dtype))]
