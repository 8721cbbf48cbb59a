"""Arithmetic, comparisons and builtins on sizes (ints), never on tensors."""
import functools
import math
import operator

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

    def forward(self, x, y):
        x, y = x.contiguous(), y.contiguous()
        n = functools.reduce(operator.mul, x.shape, 1)
        assert n == math.prod(x.shape) == x.shape[0] * x.shape[1]
        out = torch.empty_like(x)
        if n == 0:
            return out
        BLOCK = max(16, min(1024, triton.next_power_of_2(n // 4)))
        n_programs = -(-n // BLOCK)
        add_bias_relu_kernel[(n_programs,)](x, y, self.bias, out, n, x.shape[-1], BLOCK=BLOCK)
        return out
