"""Matrix product of two fp32 matrices."""
import torch
import torch.nn as nn

OPERATOR = {"id": "dev_mask_matmul_tiles", "family": "matmul"}
CASES = [
    {"tier": "compact", "M": 32, "N": 32, "K": 40},
    {"tier": "compact", "M": 32, "N": 40, "K": 20},
    {"tier": "full", "M": 1, "N": 5, "K": 3},
    {"tier": "full", "M": 33, "N": 17, "K": 65},
]


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, a, b):
        return a @ b


def get_init_inputs(**case):
    return []


def get_inputs(M=32, N=32, K=40):
    return [torch.randn(M, K), torch.randn(K, N)]
