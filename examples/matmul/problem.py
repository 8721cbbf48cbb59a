"""Matrix product a @ b in fp32; b may be a transposed view."""
import torch
import torch.nn as nn

OPERATOR = {"id": "matmul", "family": "matmul"}
CASES = [
    {"tier": "compact", "M": 32, "K": 32, "N": 32},
    {"tier": "compact", "M": 64, "K": 64, "N": 16},
    {"tier": "full", "M": 1, "K": 1, "N": 1},
    {"tier": "full", "M": 7, "K": 50, "N": 33},
    {"tier": "full", "M": 33, "K": 100, "N": 17},
    {"tier": "full", "M": 32, "K": 48, "N": 40, "b_layout": "transposed"},
]


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, a, b):
        return torch.matmul(a, b)


def get_init_inputs(**case):
    return []


def get_inputs(M=64, K=64, N=64, b_layout="contiguous"):
    a = torch.randn(M, K)
    b = torch.randn(N, K).t() if b_layout == "transposed" else torch.randn(K, N)
    return [a, b]
