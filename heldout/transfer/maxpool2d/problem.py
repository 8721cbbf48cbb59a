"""2-D max pooling (torch.nn.MaxPool2d) on an NCHW tensor, with kernel size, stride and padding."""
import torch
import torch.nn as nn

OPERATOR = {"id": "maxpool2d", "family": "pooling"}
CASES = [
    {"tier": "compact", "B": 2, "C": 4, "H": 8, "W": 8},
    {"tier": "compact", "B": 1, "C": 3, "H": 16, "W": 16, "sign": "negative"},
    {"tier": "full", "B": 1, "C": 1, "H": 2, "W": 2},
    {"tier": "full", "B": 3, "C": 5, "H": 7, "W": 9},
    {"tier": "full", "B": 2, "C": 3, "H": 9, "W": 11, "kernel_size": 3, "stride": 2},
    {"tier": "full", "B": 2, "C": 2, "H": 10, "W": 13, "kernel_size": 3, "stride": 1, "padding": 1,
     "sign": "negative"},
    {"tier": "full", "B": 1, "C": 4, "H": 33, "W": 20, "kernel_size": 2, "stride": 1},
]


class Model(nn.Module):
    def __init__(self, kernel_size=2, stride=None, padding=0):
        super().__init__()
        self.pool = nn.MaxPool2d(kernel_size, stride=stride, padding=padding)

    def forward(self, x):
        return self.pool(x)


def get_init_inputs(kernel_size=2, stride=None, padding=0, **shape):
    return [kernel_size, stride, padding]


def get_inputs(B=2, C=4, H=16, W=16, sign="mixed", **params):
    x = torch.randn(B, C, H, W)
    if sign == "negative":  # every element < 0: a max seeded with 0 gets every window wrong
        x = -x.abs() - 0.1
    return [x]
