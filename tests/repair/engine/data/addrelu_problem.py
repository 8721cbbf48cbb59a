"""Test fixture: relu(x + y) over a 1-D tensor."""
import torch
import torch.nn as nn

OPERATOR = {"id": "test_add_relu", "family": "elementwise"}
CASES = [
    {"tier": "compact", "N": 1000},
    {"tier": "full", "N": 1},
    {"tier": "full", "N": 3000},
]


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x, y):
        return torch.relu(x + y)


def get_init_inputs(**case):
    return []


def get_inputs(N=1000):
    return [torch.randn(N), torch.randn(N)]
