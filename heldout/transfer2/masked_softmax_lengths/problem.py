"""Length-masked softmax: row i of x [M, N] keeps its first lengths[i] entries; the rest are -inf (output 0)."""
import torch
import torch.nn as nn

OPERATOR = {"id": "masked_softmax_lengths", "family": "softmax"}
CASES = [
    {"tier": "compact", "M": 4, "N": 64},
    {"tier": "compact", "M": 8, "N": 32},
    {"tier": "full", "M": 1, "N": 1},
    {"tier": "full", "M": 6, "N": 100},
    {"tier": "full", "M": 5, "N": 300, "shift": -10000.0},
    {"tier": "full", "M": 9, "N": 45},
]


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x, lengths):
        keep = torch.arange(x.shape[1], device=x.device)[None, :] < lengths[:, None]
        return torch.softmax(x.masked_fill(~keep, float("-inf")), dim=-1)


def get_init_inputs(**case):
    return []


def get_inputs(M=4, N=64, shift=0.0):
    x = torch.randn(M, N) + shift
    lengths = torch.randint(1, N + 1, (M,))
    lengths[0] = max(1, N // 2)
    return [x, lengths]
