"""Softmax over the last dim of logits divided by a temperature (constructor argument)."""
import torch
import torch.nn as nn

OPERATOR = {"id": "softmax_temperature", "family": "softmax"}
CASES = [
    {"tier": "compact", "M": 4, "N": 64},
    {"tier": "compact", "M": 8, "N": 128},
    {"tier": "full", "M": 1, "N": 1},
    {"tier": "full", "M": 3, "N": 100, "temperature": 0.5},
    {"tier": "full", "M": 5, "N": 1000, "temperature": 2.0},
    {"tier": "full", "M": 2, "N": 77, "temperature": 0.05, "scale": 10.0},
]


class Model(nn.Module):
    def __init__(self, temperature=1.0):
        super().__init__()
        self.temperature = temperature

    def forward(self, x):
        return torch.softmax(x / self.temperature, dim=-1)


def get_init_inputs(temperature=1.0, **shape):
    return [temperature]


def get_inputs(M=4, N=64, scale=1.0, **params):
    return [torch.randn(M, N) * scale]
