"""torch.bmm(a [Bt, M, K], b [Bt, K, N]) in fp32; b may be a transposed view."""
import torch
import torch.nn as nn

OPERATOR = {"id": "bmm_small", "family": "matmul"}
CASES = [
    {"tier": "compact", "Bt": 2, "M": 16, "K": 16, "N": 16},
    {"tier": "compact", "Bt": 4, "M": 16, "K": 32, "N": 32},
    {"tier": "full", "Bt": 1, "M": 1, "K": 1, "N": 1},
    {"tier": "full", "Bt": 3, "M": 20, "K": 37, "N": 24},
    {"tier": "full", "Bt": 2, "M": 17, "K": 50, "N": 33},
    {"tier": "full", "Bt": 3, "M": 16, "K": 40, "N": 32, "b_layout": "transposed"},
]


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, a, b):
        return torch.bmm(a, b)


def get_init_inputs(**case):
    return []


def get_inputs(Bt=2, M=16, K=16, N=16, b_layout="contiguous"):
    a = torch.randn(Bt, M, K)
    b = torch.randn(Bt, N, K).transpose(1, 2) if b_layout == "transposed" else torch.randn(Bt, K, N)
    return [a, b]
