"""F.nll_loss(logp [M, C], target [M], ignore_index=...), mean over the non-ignored rows."""
import torch
import torch.nn as nn
import torch.nn.functional as F

OPERATOR = {"id": "nll_loss_ignore", "family": "loss"}
CASES = [
    {"tier": "compact", "M": 64, "C": 16},
    {"tier": "compact", "M": 128, "C": 8},
    {"tier": "full", "M": 1, "C": 1},
    {"tier": "full", "M": 100, "C": 10, "n_ignore": 30},
    {"tier": "full", "M": 77, "C": 5, "ignore_index": 2},
    {"tier": "full", "M": 300, "C": 33, "n_ignore": 5},
]


class Model(nn.Module):
    def __init__(self, ignore_index=-100):
        super().__init__()
        self.ignore_index = ignore_index

    def forward(self, logp, target):
        return F.nll_loss(logp, target, ignore_index=self.ignore_index)


def get_init_inputs(ignore_index=-100, **shape):
    return [ignore_index]


def get_inputs(M=64, C=16, n_ignore=0, ignore_index=-100, **params):
    logp = torch.log_softmax(torch.randn(M, C), dim=-1)
    target = torch.randint(0, C, (M,))
    if n_ignore:
        target[torch.randperm(M)[:n_ignore]] = ignore_index
    if ignore_index >= 0:
        target[0] = (ignore_index + 1) % C
    return [logp, target]
