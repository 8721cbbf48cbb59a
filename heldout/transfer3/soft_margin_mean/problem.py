"""Soft-margin loss averaged over all elements: mean(log(1 + exp(-y * x))) with y in {-1, +1}, x [B, N].

The reference is softplus(-y x).mean(): F.soft_margin_loss evaluates log(1 + exp(.)) literally on the CPU and
returns inf for confidently wrong predictions, which the loss is not.
"""
import torch
import torch.nn as nn
import torch.nn.functional as F

OPERATOR = {"id": "soft_margin_mean", "family": "loss"}
CASES = [
    {"tier": "compact", "B": 4, "N": 256},
    {"tier": "compact", "B": 8, "N": 512},
    {"tier": "full", "B": 1, "N": 1},
    {"tier": "full", "B": 3, "N": 1000},
    {"tier": "full", "B": 5, "N": 333, "scale": 60.0},
    {"tier": "full", "B": 64, "N": 30},
    {"tier": "full", "B": 7, "N": 4100},
]


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x, y):
        return F.softplus(-y * x).mean()


def get_init_inputs(**case):
    return []


def get_inputs(B=16, N=1024, scale=2.0):
    x = torch.randn(B, N) * scale
    y = torch.randint(0, 2, (B, N)).float() * 2 - 1
    return [x, y]
