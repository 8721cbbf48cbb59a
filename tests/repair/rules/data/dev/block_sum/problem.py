"""Sum of all elements of a tensor (a 0-d result)."""
import torch
import torch.nn as nn

OPERATOR = {"id": "dev_block_sum", "family": "reduction"}
CASES = [
    {"tier": "compact", "N": 4096},
    {"tier": "compact", "N": 1000},
    {"tier": "full", "N": 1},
    {"tier": "full", "N": 5000},
    {"tier": "full", "N": 2049},
]


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return x.sum()


def get_init_inputs(**case):
    return []


def get_inputs(N=4096):
    return [torch.randn(N)]
