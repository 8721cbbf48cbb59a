"""Half-precision matrix product a @ b with fp32 accumulation, result in fp16."""
import torch
import torch.nn as nn

OPERATOR = {"id": "matmul_fp16", "family": "matmul"}
CASES = [
    {"tier": "compact", "M": 32, "K": 32, "N": 32},
    {"tier": "compact", "M": 64, "K": 32, "N": 16},
    {"tier": "full", "M": 1, "K": 1, "N": 1},
    {"tier": "full", "M": 7, "K": 50, "N": 33},
    {"tier": "full", "M": 33, "K": 700, "N": 17},
    {"tier": "full", "M": 40, "K": 96, "N": 72},
    {"tier": "full", "M": 16, "K": 1000, "N": 16},
]


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, a, b):
        return (a.float() @ b.float()).to(a.dtype)


def get_init_inputs(**case):
    return []


def get_inputs(M=64, K=64, N=64):
    return [torch.randn(M, K).half(), torch.randn(K, N).half()]
