"""Hinge loss with a margin, averaged: mean(clamp(margin - pred * target, min=0)), target in {-1, +1}."""
import torch
import torch.nn as nn

OPERATOR = {"id": "hinge_margin_mean", "family": "loss"}
CASES = [
    {"tier": "compact", "N": 1024},
    {"tier": "compact", "N": 4096},
    {"tier": "full", "N": 1},
    {"tier": "full", "N": 1000},
    {"tier": "full", "N": 3333, "margin": 0.5},
    {"tier": "full", "N": 30000},
    {"tier": "full", "N": 777, "margin": 2.0},
]


class Model(nn.Module):
    def __init__(self, margin=1.0):
        super().__init__()
        self.margin = margin

    def forward(self, pred, target):
        return torch.clamp(self.margin - pred * target, min=0).mean()


def get_init_inputs(margin=1.0, **shape):
    return [margin]


def get_inputs(N=4096, **params):
    pred = torch.randn(N)
    target = torch.randint(0, 2, (N,)).float() * 2 - 1
    return [pred, target]
