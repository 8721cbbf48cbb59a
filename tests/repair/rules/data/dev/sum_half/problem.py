"""Sum over the last dimension of a half-precision 2-D tensor, returned in fp32."""
import torch
import torch.nn as nn

OPERATOR = {"id": "dev_sum_half", "family": "reduction"}
CASES = [
    {"tier": "compact", "M": 4, "N": 16384},
    {"tier": "compact", "M": 8, "N": 256},
    {"tier": "full", "M": 3, "N": 1000},
    {"tier": "full", "M": 2, "N": 8191},
]


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return x.float().sum(dim=-1)


def get_init_inputs(**case):
    return []


def get_inputs(M=8, N=256):
    return [(torch.rand(M, N) * 10.0 + 5.0).half()]
