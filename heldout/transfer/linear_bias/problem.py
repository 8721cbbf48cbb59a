"""Linear layer y = x @ W^T + b (nn.Linear) on a 2-D input, fp32."""
import torch
import torch.nn as nn

OPERATOR = {"id": "linear_bias", "family": "matmul"}
CASES = [
    {"tier": "compact", "M": 32, "K": 32, "N": 32},
    {"tier": "compact", "M": 16, "K": 64, "N": 32},
    {"tier": "full", "M": 1, "K": 1, "N": 1},
    {"tier": "full", "M": 7, "K": 50, "N": 33},
    {"tier": "full", "M": 33, "K": 100, "N": 17},
    {"tier": "full", "M": 3, "K": 1025, "N": 10},
    {"tier": "full", "M": 2, "K": 24, "N": 1000},
    # x is a column slice of a wider tensor: its row stride is K + 8, not K
    {"tier": "full", "M": 9, "K": 40, "N": 24, "x_layout": "sliced"},
]


class Model(nn.Module):
    def __init__(self, in_features, out_features):
        super().__init__()
        self.linear = nn.Linear(in_features, out_features)

    def forward(self, x):
        return self.linear(x)


def get_init_inputs(K=64, N=64, **shape):
    return [K, N]


def get_inputs(M=64, K=64, x_layout="contiguous", **shape):
    if x_layout == "sliced":
        return [torch.randn(M, K + 8)[:, :K]]
    return [torch.randn(M, K)]
