"""Mean squared error between two tensors (a 0-d result)."""
import torch
import torch.nn as nn
import torch.nn.functional as F

OPERATOR = {"id": "dev_mse_loss", "family": "loss"}
CASES = [
    {"tier": "compact", "N": 2048},
    {"tier": "compact", "N": 3000},
    {"tier": "full", "N": 1},
    {"tier": "full", "N": 10000},
]


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, pred, target):
        return F.mse_loss(pred, target)


def get_init_inputs(**case):
    return []


def get_inputs(N=2048):
    return [torch.randn(N), torch.randn(N)]
