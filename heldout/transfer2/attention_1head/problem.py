"""Single-head scaled dot-product attention softmax(q k^T / sqrt(D)) v on [B, S, D], optionally causal."""
import torch
import torch.nn as nn
import torch.nn.functional as F

OPERATOR = {"id": "attention_1head", "family": "attention"}
CASES = [
    {"tier": "compact", "B": 2, "S": 16, "D": 16},
    {"tier": "compact", "B": 1, "S": 32, "D": 32},
    {"tier": "full", "B": 1, "S": 1, "D": 16},
    {"tier": "full", "B": 2, "S": 20, "D": 16},
    {"tier": "full", "B": 1, "S": 45, "D": 24},
    {"tier": "full", "B": 2, "S": 33, "D": 16, "causal": True},
]


class Model(nn.Module):
    def __init__(self, causal=False):
        super().__init__()
        self.causal = causal

    def forward(self, q, k, v):
        return F.scaled_dot_product_attention(q, k, v, is_causal=self.causal)


def get_init_inputs(causal=False, **shape):
    return [causal]


def get_inputs(B=2, S=16, D=16, **params):
    return [torch.randn(B, S, D), torch.randn(B, S, D), torch.randn(B, S, D)]
