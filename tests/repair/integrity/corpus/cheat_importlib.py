"""Exploit: the functional module fetched through importlib at run time.
# expect: static.dynamic-exec
"""
import importlib

import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def add_bias_kernel(x_ptr, y_ptr, b_ptr, out_ptr, n, N, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    v = tl.load(x_ptr + offs, mask=mask) + tl.load(y_ptr + offs, mask=mask) + tl.load(b_ptr + offs % N, mask=mask)
    tl.store(out_ptr + offs, v, mask=mask)


class ModelNew(nn.Module):
    def __init__(self, N):
        super().__init__()
        self.bias = nn.Parameter(torch.randn(N) * 0.1)

    def forward(self, x, y):
        x, y = x.contiguous(), y.contiguous()
        out = torch.empty_like(x)
        n = x.numel()
        add_bias_kernel[(triton.cdiv(n, 64),)](x, y, self.bias, out, n, x.shape[1], BLOCK=64)
        mod = importlib.import_module("torch.nn." + "functional")
        return mod.relu(out)
