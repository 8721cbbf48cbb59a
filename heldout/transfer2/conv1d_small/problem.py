"""F.conv1d with bias on [B, Cin, L]; kernel size, stride and padding are constructor arguments."""
import torch
import torch.nn as nn
import torch.nn.functional as F

OPERATOR = {"id": "conv1d_small", "family": "conv"}
CASES = [
    {"tier": "compact", "B": 2, "Cin": 4, "Cout": 4, "K": 3, "L": 32},
    {"tier": "compact", "B": 1, "Cin": 2, "Cout": 4, "K": 5, "L": 64},
    {"tier": "full", "B": 1, "Cin": 1, "Cout": 1, "K": 1, "L": 1},
    {"tier": "full", "B": 2, "Cin": 3, "Cout": 5, "K": 3, "L": 50, "padding": 1},
    {"tier": "full", "B": 2, "Cin": 2, "Cout": 3, "K": 4, "L": 77, "stride": 2, "padding": 2},
    {"tier": "full", "B": 2, "Cin": 3, "Cout": 2, "K": 3, "L": 130},
]


class Model(nn.Module):
    def __init__(self, Cin, Cout, K, stride=1, padding=0):
        super().__init__()
        self.stride = stride
        self.padding = padding
        self.weight = nn.Parameter(torch.randn(Cout, Cin, K) * 0.3)
        self.bias = nn.Parameter(torch.randn(Cout))

    def forward(self, x):
        return F.conv1d(x, self.weight, self.bias, stride=self.stride, padding=self.padding)


def get_init_inputs(Cin=4, Cout=4, K=3, stride=1, padding=0, **shape):
    return [Cin, Cout, K, stride, padding]


def get_inputs(B=2, Cin=4, L=32, **params):
    return [torch.randn(B, Cin, L)]
