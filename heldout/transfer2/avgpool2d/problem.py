"""nn.AvgPool2d(kernel_size, stride=None, padding) on NCHW (count_include_pad=True, stride defaults to kernel_size)."""
import torch
import torch.nn as nn

OPERATOR = {"id": "avgpool2d", "family": "pooling"}
CASES = [
    {"tier": "compact", "B": 1, "C": 2, "H": 8, "W": 8, "kernel_size": 2},
    {"tier": "compact", "B": 2, "C": 2, "H": 16, "W": 16, "kernel_size": 4},
    {"tier": "full", "B": 1, "C": 1, "H": 1, "W": 1, "kernel_size": 1},
    {"tier": "full", "B": 2, "C": 3, "H": 9, "W": 13, "kernel_size": 3, "stride": 2, "padding": 1},
    {"tier": "full", "B": 1, "C": 2, "H": 11, "W": 20, "kernel_size": 2, "stride": 1},
    {"tier": "full", "B": 2, "C": 2, "H": 7, "W": 10, "kernel_size": 3},
]


class Model(nn.Module):
    def __init__(self, kernel_size, stride=None, padding=0):
        super().__init__()
        self.pool = nn.AvgPool2d(kernel_size, stride=stride, padding=padding)

    def forward(self, x):
        return self.pool(x)


def get_init_inputs(kernel_size=2, stride=None, padding=0, **shape):
    return [kernel_size, stride, padding]


def get_inputs(B=1, C=2, H=8, W=8, **params):
    return [torch.randn(B, C, H, W)]
