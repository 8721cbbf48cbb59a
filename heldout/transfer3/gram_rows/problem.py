"""Gram matrix of the rows of x: G = x @ x.T for x [M, K] in fp32, G [M, M]."""
import torch
import torch.nn as nn

OPERATOR = {"id": "gram_rows", "family": "matmul"}
CASES = [
    {"tier": "compact", "M": 32, "K": 64},
    {"tier": "compact", "M": 16, "K": 128},
    {"tier": "full", "M": 1, "K": 1},
    {"tier": "full", "M": 7, "K": 50},
    {"tier": "full", "M": 33, "K": 100},
    {"tier": "full", "M": 40, "K": 129},
    {"tier": "full", "M": 20, "K": 300},
]


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return x @ x.t()


def get_init_inputs(**case):
    return []


def get_inputs(M=64, K=64):
    return [torch.randn(M, K)]
