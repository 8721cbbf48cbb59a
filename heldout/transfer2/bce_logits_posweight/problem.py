"""F.binary_cross_entropy_with_logits(x, y, pos_weight), mean over [M, C]; optional per-class pos_weight."""
import torch
import torch.nn as nn
import torch.nn.functional as F

OPERATOR = {"id": "bce_logits_posweight", "family": "loss"}
CASES = [
    {"tier": "compact", "M": 4, "C": 64},
    {"tier": "compact", "M": 16, "C": 32},
    {"tier": "full", "M": 1, "C": 1},
    {"tier": "full", "M": 7, "C": 45, "with_pos_weight": True},
    {"tier": "full", "M": 9, "C": 100, "scale": 30.0},
    {"tier": "full", "M": 5, "C": 300, "with_pos_weight": True, "soft": True},
]


class Model(nn.Module):
    def __init__(self, C, with_pos_weight=False):
        super().__init__()
        if with_pos_weight:
            self.register_buffer("pos_weight", torch.rand(C) * 3.0 + 0.5)
        else:
            self.pos_weight = None

    def forward(self, x, y):
        return F.binary_cross_entropy_with_logits(x, y, pos_weight=self.pos_weight)


def get_init_inputs(C=64, with_pos_weight=False, **shape):
    return [C, with_pos_weight]


def get_inputs(M=4, C=64, scale=1.0, soft=False, **params):
    x = torch.randn(M, C) * scale
    y = torch.rand(M, C) if soft else (torch.rand(M, C) < 0.5).float()
    return [x, y]
