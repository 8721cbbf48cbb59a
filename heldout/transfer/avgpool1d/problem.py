"""1-D average pooling over the last dimension of [B, C, L] (nn.AvgPool1d: zero padding counted in the average)."""
import torch
import torch.nn as nn

OPERATOR = {"id": "avgpool1d", "family": "pooling"}
CASES = [
    {"tier": "compact", "B": 2, "C": 4, "L": 64, "kernel_size": 4, "stride": 4, "padding": 0},
    {"tier": "compact", "B": 1, "C": 8, "L": 128, "kernel_size": 2, "stride": 2, "padding": 0},
    {"tier": "full", "B": 1, "C": 1, "L": 1, "kernel_size": 1, "stride": 1, "padding": 0},
    {"tier": "full", "B": 2, "C": 3, "L": 33, "kernel_size": 3, "stride": 1, "padding": 1},
    {"tier": "full", "B": 2, "C": 3, "L": 1000, "kernel_size": 5, "stride": 3, "padding": 2},
    {"tier": "full", "B": 1, "C": 5, "L": 1025, "kernel_size": 4, "stride": 2, "padding": 0},
    {"tier": "full", "B": 3, "C": 2, "L": 7, "kernel_size": 3, "stride": 2, "padding": 1},
]


class Model(nn.Module):
    def __init__(self, kernel_size, stride=None, padding=0):
        super().__init__()
        self.pool = nn.AvgPool1d(kernel_size, stride=stride, padding=padding)

    def forward(self, x):
        return self.pool(x)


def get_init_inputs(kernel_size=4, stride=None, padding=0, **shape):
    return [kernel_size, stride, padding]


def get_inputs(B=4, C=8, L=256, **params):
    return [torch.randn(B, C, L)]
