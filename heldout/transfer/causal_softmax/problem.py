"""Row softmax under a causal mask: row i attends to columns j <= i + offset; masked entries get probability 0."""
import torch
import torch.nn as nn

OPERATOR = {"id": "causal_softmax", "family": "softmax"}
CASES = [
    {"tier": "compact", "M": 16, "N": 16},
    {"tier": "compact", "M": 32, "N": 64},
    {"tier": "full", "M": 1, "N": 1},
    {"tier": "full", "M": 33, "N": 33},
    {"tier": "full", "M": 8, "N": 1000, "offset": 500},
    {"tier": "full", "M": 5, "N": 1025, "offset": 1020},
    {"tier": "full", "M": 20, "N": 40, "offset": 3},
    # Logits of magnitude ~100: exp() overflows fp32 unless the row max is subtracted first.
    {"tier": "full", "M": 16, "N": 256, "offset": 128, "scale": 100.0},
]


class Model(nn.Module):
    def __init__(self, offset=0):
        super().__init__()
        self.offset = offset

    def forward(self, x):
        M, N = x.shape
        keep = torch.ones(M, N, dtype=torch.bool, device=x.device).tril(diagonal=self.offset)
        return torch.softmax(x.masked_fill(~keep, float("-inf")), dim=-1)


def get_init_inputs(offset=0, **shape):
    return [offset]


def get_inputs(M=32, N=64, scale=1.0, **params):
    return [torch.randn(M, N) * scale]
