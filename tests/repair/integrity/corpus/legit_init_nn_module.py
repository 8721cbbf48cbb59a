"""Weights drawn through an nn.Linear built in __init__ (as a reference built on nn.Linear would need);
forward only hands the parameter to the kernel, it never calls the module."""
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def add_bias_relu_kernel(x_ptr, y_ptr, b_ptr, out_ptr, n, N, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    v = tl.load(x_ptr + offs, mask=mask) + tl.load(y_ptr + offs, mask=mask) + tl.load(b_ptr + offs % N, mask=mask)
    tl.store(out_ptr + offs, tl.maximum(v, 0.0), mask=mask)


class ModelNew(nn.Module):
    def __init__(self, N):
        super().__init__()
        self.bias = nn.Parameter(torch.randn(N) * 0.1)
        self.proj = nn.Linear(N, N)  # unused weights; constructing a module is initialisation, not compute
        nn.init.zeros_(self.proj.bias)

    def forward(self, x, y):
        x, y = x.contiguous(), y.contiguous()
        out = torch.empty_like(x)
        n = x.numel()
        assert self.proj.weight.shape[0] == x.shape[1]
        add_bias_relu_kernel[(triton.cdiv(n, 64),)](x, y, self.bias, out, n, x.shape[1], BLOCK=64)
        return out
