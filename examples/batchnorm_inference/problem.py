"""BatchNorm2d in inference mode on [B, C, H, W]: running statistics, weight and bias are fixed."""
import torch
import torch.nn as nn
import torch.nn.functional as F

OPERATOR = {"id": "batchnorm_inference", "family": "normalization"}
CASES = [
    {"tier": "compact", "B": 2, "C": 4, "H": 4, "W": 4},
    {"tier": "compact", "B": 1, "C": 8, "H": 8, "W": 8},
    {"tier": "full", "B": 1, "C": 1, "H": 1, "W": 1},
    {"tier": "full", "B": 3, "C": 5, "H": 7, "W": 3},
    {"tier": "full", "B": 2, "C": 3, "H": 10, "W": 11, "eps": 0.1},
    {"tier": "full", "B": 4, "C": 6, "H": 5, "W": 5, "eps": 0.01},
]


class Model(nn.Module):
    def __init__(self, C, eps=1e-5):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.randn(C))
        self.bias = nn.Parameter(torch.randn(C))
        self.register_buffer("running_mean", torch.randn(C))
        self.register_buffer("running_var", torch.rand(C) + 0.5)

    def forward(self, x):
        return F.batch_norm(x, self.running_mean, self.running_var, self.weight, self.bias,
                            training=False, eps=self.eps)


def get_init_inputs(C=16, eps=1e-5, **shape):
    return [C, eps]


def get_inputs(B=8, C=16, H=16, W=16, **params):
    return [torch.randn(B, C, H, W)]
