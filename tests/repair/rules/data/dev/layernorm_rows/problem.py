"""LayerNorm over the last dimension of a 2-D tensor, with a learned weight and bias."""
import torch
import torch.nn as nn

OPERATOR = {"id": "dev_layernorm_rows", "family": "normalization"}
CASES = [
    {"tier": "compact", "M": 4, "N": 128},
    {"tier": "compact", "M": 8, "N": 256, "scale": 1e-3},
    {"tier": "full", "M": 3, "N": 1000},
    {"tier": "full", "M": 5, "N": 77, "eps": 1e-2},
    {"tier": "full", "M": 6, "N": 300, "shift": 100.0},
    {"tier": "full", "M": 2, "N": 512, "scale": 1e-3, "eps": 1e-3},
]


class Model(nn.Module):
    def __init__(self, N, eps=1e-5):
        super().__init__()
        self.norm = nn.LayerNorm(N, eps=eps)
        with torch.no_grad():
            self.norm.weight.copy_(torch.randn(N))
            self.norm.bias.copy_(torch.randn(N))

    def forward(self, x):
        return self.norm(x)


def get_init_inputs(N=128, eps=1e-5, **case):
    return [N, eps]


def get_inputs(M=8, N=128, scale=1.0, shift=0.0, **params):
    return [torch.randn(M, N) * scale + shift]
