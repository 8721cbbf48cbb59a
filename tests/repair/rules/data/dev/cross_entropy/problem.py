"""Per-row cross-entropy loss from logits and integer class targets (no reduction)."""
import torch
import torch.nn as nn
import torch.nn.functional as F

OPERATOR = {"id": "dev_cross_entropy", "family": "loss"}
CASES = [
    {"tier": "compact", "M": 8, "C": 128},
    {"tier": "compact", "M": 4, "C": 100},
    {"tier": "full", "M": 6, "C": 1000, "scale": 30.0},
    {"tier": "full", "M": 3, "C": 10},
]


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, logits, target):
        return F.cross_entropy(logits, target, reduction="none")


def get_init_inputs(**case):
    return []


def get_inputs(M=8, C=128, scale=1.0):
    return [torch.randn(M, C) * scale, torch.randint(0, C, (M,))]
