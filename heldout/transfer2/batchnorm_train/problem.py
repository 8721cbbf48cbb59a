"""BatchNorm1d forward in training mode on [B, C, L]: batch statistics (biased variance), affine weight/bias."""
import torch
import torch.nn as nn
import torch.nn.functional as F

OPERATOR = {"id": "batchnorm_train", "family": "normalization"}
CASES = [
    {"tier": "compact", "B": 4, "C": 4, "L": 16},
    {"tier": "compact", "B": 2, "C": 8, "L": 32},
    {"tier": "full", "B": 1, "C": 1, "L": 2},
    {"tier": "full", "B": 3, "C": 5, "L": 37},
    {"tier": "full", "B": 8, "C": 3, "L": 100, "eps": 0.1, "scale": 0.2},
    {"tier": "full", "B": 2, "C": 6, "L": 70, "layout": "channels_last"},
]


class Model(nn.Module):
    def __init__(self, C, eps=1e-5):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.randn(C))
        self.bias = nn.Parameter(torch.randn(C))

    def forward(self, x):
        return F.batch_norm(x, None, None, self.weight, self.bias, training=True, eps=self.eps)


def get_init_inputs(C=4, eps=1e-5, **shape):
    return [C, eps]


def get_inputs(B=4, C=4, L=16, scale=1.0, layout="contiguous", **params):
    if layout == "channels_last":
        return [(torch.randn(B, L, C) * scale + 1.0).permute(0, 2, 1)]
    return [torch.randn(B, C, L) * scale + 1.0]
