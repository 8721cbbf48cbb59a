"""1-D max pooling of [B, C, L] with kernel_size, stride (None: kernel_size) and padding from the constructor."""
import torch
import torch.nn as nn
import torch.nn.functional as F

OPERATOR = {"id": "maxpool1d_pad", "family": "pooling"}
CASES = [
    {"tier": "compact", "B": 2, "C": 4, "L": 64},
    {"tier": "compact", "B": 4, "C": 8, "L": 32},
    {"tier": "full", "B": 1, "C": 1, "L": 1},
    {"tier": "full", "B": 2, "C": 3, "L": 1000},
    {"tier": "full", "B": 3, "C": 5, "L": 77, "stride": 1},
    {"tier": "full", "B": 4, "C": 16, "L": 33, "kernel_size": 5, "padding": 2},
    {"tier": "full", "B": 2, "C": 6, "L": 50, "stride": 2, "padding": 0},
]


class Model(nn.Module):
    def __init__(self, kernel_size=3, stride=None, padding=1):
        super().__init__()
        self.kernel_size, self.stride, self.padding = kernel_size, stride, padding

    def forward(self, x):
        return F.max_pool1d(x, self.kernel_size, self.stride, self.padding)


def get_init_inputs(kernel_size=3, stride=None, padding=1, **shape):
    return [kernel_size, stride, padding]


def get_inputs(B=4, C=8, L=256, **params):
    return [torch.randn(B, C, L)]
