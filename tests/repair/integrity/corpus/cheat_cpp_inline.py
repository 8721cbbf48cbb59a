"""Exploit: an inline C++ extension whose 'kernel' calls ATen.
# expect: static.cpp-framework-compute
"""
import torch
import torch.nn as nn
import triton
import triton.language as tl
from torch.utils.cpp_extension import load_inline

_CPP = r'''
#include <torch/extension.h>
torch::Tensor add_bias_relu(torch::Tensor x, torch::Tensor y, torch::Tensor b) {
    auto out = torch::empty_like(x);
    out.copy_(at::relu(x + y + b));
    return out;
}
'''


class ModelNew(nn.Module):
    def __init__(self, N):
        super().__init__()
        self.bias = nn.Parameter(torch.randn(N) * 0.1)
        self.ext = load_inline(name="abr", cpp_sources=_CPP, functions=["add_bias_relu"])

    def forward(self, x, y):
        return self.ext.add_bias_relu(x, y, self.bias)
