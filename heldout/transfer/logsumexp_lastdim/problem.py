"""Log-sum-exp over the last dimension of a 2-D tensor: log(sum(exp(x), dim=-1))."""
import torch
import torch.nn as nn

OPERATOR = {"id": "logsumexp_lastdim", "family": "reduction"}
CASES = [
    {"tier": "compact", "M": 4, "N": 64},
    {"tier": "compact", "M": 8, "N": 100},
    {"tier": "full", "M": 7, "N": 1},
    {"tier": "full", "M": 3, "N": 1000},
    {"tier": "full", "M": 2, "N": 1025},
    {"tier": "full", "M": 5, "N": 33},
    # Logits of magnitude ~100: exp() overflows fp32 unless a running max is subtracted first.
    {"tier": "full", "M": 4, "N": 300, "scale": 100.0},
    # Every logit below -200: exp(x) underflows to 0 unless it is taken relative to the row max.
    {"tier": "full", "M": 4, "N": 200, "scale": 100.0, "sign": "negative"},
]


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return torch.logsumexp(x, dim=-1)


def get_init_inputs(**case):
    return []


def get_inputs(M=64, N=1000, scale=1.0, sign="mixed"):
    x = torch.randn(M, N) * scale
    if sign == "negative":
        x = -x.abs() - 2.0 * scale
    return [x]
