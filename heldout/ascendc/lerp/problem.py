"""Linear interpolation with a scalar weight: y = start + weight * (end - start), for MultiKernelBench six-source
AscendC candidates (float32 and float16; the half reference rounds each operation to half, as the kernel does)."""
import torch
import torch.nn as nn

OPERATOR = {"id": "lerp", "family": "elementwise"}
TOLERANCE = {"atol": 1e-3, "rtol": 1e-3}
CASES = [
    {"tier": "compact", "shape": [40, 256], "dtype": "float32", "weight": 0.25},
    {"tier": "compact", "shape": [20, 512], "dtype": "float16", "weight": 0.5},
    {"tier": "full", "shape": [7, 3001], "dtype": "float16", "weight": 0.375},
    {"tier": "full", "shape": [64, 8192], "dtype": "float32", "weight": 0.75},
    {"tier": "full", "shape": [999], "dtype": "float32", "weight": 0.5},
    {"tier": "full", "shape": [48, 4097], "dtype": "float16", "weight": 0.25},
]


class Model(nn.Module):
    def __init__(self, weight=0.5):
        super().__init__()
        self.weight = weight

    def forward(self, start, end):
        return start + self.weight * (end - start)


def get_init_inputs(shape=(40, 256), dtype="float32", weight=0.5):
    return [weight]


def get_inputs(shape=(40, 256), dtype="float32", weight=0.5):
    dt = getattr(torch, dtype)
    return [torch.randn(*shape).to(dt), torch.randn(*shape).to(dt)]
