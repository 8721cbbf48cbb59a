"""Huber loss with threshold delta, mean over all elements (F.huber_loss, reduction='mean'); a 0-d result."""
import torch
import torch.nn as nn
import torch.nn.functional as F

OPERATOR = {"id": "huber_loss_mean", "family": "loss"}
CASES = [
    {"tier": "compact", "M": 16, "N": 64},
    {"tier": "compact", "M": 32, "N": 128},
    {"tier": "full", "M": 1, "N": 1},
    {"tier": "full", "M": 7, "N": 1000},
    {"tier": "full", "M": 3, "N": 1025},
    {"tier": "full", "M": 9, "N": 31, "delta": 0.5},
    {"tier": "full", "M": 5, "N": 200, "delta": 2.5},
    {"tier": "full", "M": 4, "N": 256, "delta": 3.0, "scale": 10.0},
]


class Model(nn.Module):
    def __init__(self, delta=1.0):
        super().__init__()
        self.delta = delta

    def forward(self, pred, target):
        return F.huber_loss(pred, target, reduction="mean", delta=self.delta)


def get_init_inputs(delta=1.0, **shape):
    return [delta]


def get_inputs(M=64, N=1000, scale=2.0, **params):
    return [torch.randn(M, N) * scale, torch.randn(M, N) * scale]
