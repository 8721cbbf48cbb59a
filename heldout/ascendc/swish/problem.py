"""Swish with a slope: y = x * sigmoid(beta * x), for MultiKernelBench six-source AscendC candidates."""
import torch
import torch.nn as nn

OPERATOR = {"id": "swish", "family": "activation"}
CASES = [
    {"tier": "compact", "shape": [40, 256], "beta": 1.0},
    {"tier": "compact", "shape": [80, 256], "beta": 1.0},
    {"tier": "full", "shape": [7, 3001], "beta": 1.702},
    {"tier": "full", "shape": [64, 8192], "beta": 0.5},
    {"tier": "full", "shape": [999], "beta": 1.0},
    {"tier": "full", "shape": [16, 4096], "beta": 2.0},
]


class Model(nn.Module):
    def __init__(self, beta=1.0):
        super().__init__()
        self.beta = beta

    def forward(self, x):
        return x * torch.sigmoid(self.beta * x)


def get_init_inputs(shape=(40, 256), beta=1.0):
    return [beta]


def get_inputs(shape=(40, 256), beta=1.0):
    return [torch.randn(*shape) * 3]
