"""Mean cross-entropy of logits [M, C] against integer class targets [M] (F.cross_entropy, reduction='mean')."""
import torch
import torch.nn as nn
import torch.nn.functional as F

OPERATOR = {"id": "cross_entropy_mean", "family": "loss"}
CASES = [
    {"tier": "compact", "M": 8, "C": 128},
    {"tier": "compact", "M": 16, "C": 512},
    {"tier": "full", "M": 7, "C": 1},
    {"tier": "full", "M": 4, "C": 1000},
    {"tier": "full", "M": 5, "C": 1025},
    {"tier": "full", "M": 33, "C": 10},
    # Every logit far below zero: exp(x) underflows to 0 unless shifted by the row max.
    {"tier": "full", "M": 6, "C": 300, "logits": "very-negative"},
    # Logits of magnitude ~100: exp(x) overflows fp32 unless shifted by the row max.
    {"tier": "full", "M": 6, "C": 256, "logits": "large"},
]


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, logits, target):
        return F.cross_entropy(logits, target)


def get_init_inputs(**case):
    return []


def get_inputs(M=16, C=1000, logits="normal"):
    x = torch.randn(M, C)
    if logits == "very-negative":
        x = x - 200.0
    elif logits == "large":
        x = x * 100.0
    return [x, torch.randint(0, C, (M,))]
