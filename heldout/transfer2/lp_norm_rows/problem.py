"""torch.linalg.vector_norm(x, ord=p, dim=-1) on [M, N]; p is a constructor argument; fp32 and fp16 inputs."""
import torch
import torch.nn as nn

OPERATOR = {"id": "lp_norm_rows", "family": "reduction"}
CASES = [
    {"tier": "compact", "M": 4, "N": 64},
    {"tier": "compact", "M": 8, "N": 128},
    {"tier": "full", "M": 1, "N": 1},
    {"tier": "full", "M": 5, "N": 100, "p": 3.0},
    {"tier": "full", "M": 3, "N": 77, "p": 1.0},
    {"tier": "full", "M": 4, "N": 300, "dtype": "float16", "scale": 20.0},
]


class Model(nn.Module):
    def __init__(self, p=2.0):
        super().__init__()
        self.p = p

    def forward(self, x):
        return torch.linalg.vector_norm(x, ord=self.p, dim=-1)


def get_init_inputs(p=2.0, **shape):
    return [p]


def get_inputs(M=4, N=64, dtype="float32", scale=1.0, **params):
    return [(torch.randn(M, N) * scale).to(getattr(torch, dtype))]
