"""ReLU over a 2-D tensor."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return torch.relu(x)


def get_init_inputs(**case):
    return []


def get_inputs(M=64, N=1000):
    return [torch.randn(M, N)]
