"""F.kl_div(input, target, reduction='batchmean', log_target=...) with input = log-probabilities over C classes."""
import torch
import torch.nn as nn
import torch.nn.functional as F

OPERATOR = {"id": "kl_div_batchmean", "family": "loss"}
CASES = [
    {"tier": "compact", "B": 4, "C": 64},
    {"tier": "compact", "B": 8, "C": 32},
    {"tier": "full", "B": 1, "C": 1},
    {"tier": "full", "B": 7, "C": 100},
    {"tier": "full", "B": 5, "C": 333, "sparse": True},
    {"tier": "full", "B": 3, "C": 50, "log_target": True},
]


class Model(nn.Module):
    def __init__(self, log_target=False):
        super().__init__()
        self.log_target = log_target

    def forward(self, inp, target):
        return F.kl_div(inp, target, reduction="batchmean", log_target=self.log_target)


def get_init_inputs(log_target=False, **shape):
    return [log_target]


def get_inputs(B=4, C=64, sparse=False, log_target=False, **params):
    inp = torch.log_softmax(torch.randn(B, C), dim=-1)
    logits = torch.randn(B, C)
    if sparse:
        logits = logits.masked_fill(torch.rand(B, C) < 0.5, float("-inf"))
        logits[:, 0] = 0.0
    target = torch.log_softmax(logits, dim=-1) if log_target else torch.softmax(logits, dim=-1)
    return [inp, target]
