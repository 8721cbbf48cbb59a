"""Test fixture: a KernelBench-style problem (no CASES) whose Model has a random weight."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, n):
        super().__init__()
        self.w = nn.Parameter(torch.randn(n))

    def forward(self, x):
        return x * self.w


def get_inputs():
    return [torch.randn(8, 256)]


def get_init_inputs():
    return [256]
