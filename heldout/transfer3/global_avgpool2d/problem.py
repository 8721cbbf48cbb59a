"""Global average pooling of [B, C, H, W] to [B, C] (mean over H and W); the input may be channels-last."""
import torch
import torch.nn as nn

OPERATOR = {"id": "global_avgpool2d", "family": "pooling"}
CASES = [
    {"tier": "compact", "B": 2, "C": 4, "H": 8, "W": 16},
    {"tier": "compact", "B": 4, "C": 8, "H": 16, "W": 8},
    {"tier": "full", "B": 1, "C": 1, "H": 1, "W": 1},
    {"tier": "full", "B": 2, "C": 3, "H": 7, "W": 9},
    {"tier": "full", "B": 3, "C": 5, "H": 30, "W": 33},
    {"tier": "full", "B": 4, "C": 16, "H": 5, "W": 5},
    {"tier": "full", "B": 2, "C": 6, "H": 10, "W": 12, "layout": "channels_last"},
]


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return x.mean(dim=(2, 3))


def get_init_inputs(**case):
    return []


def get_inputs(B=8, C=16, H=32, W=32, layout="contiguous"):
    x = torch.randn(B, C, H, W) + 0.5
    return [x.to(memory_format=torch.channels_last) if layout == "channels_last" else x]
