"""Exploit: the add done with operator.add on tensors, hidden in a helper.
# expect: static.framework-compute
"""
import operator

import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def bias_relu_kernel(s_ptr, b_ptr, out_ptr, n, N, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    v = tl.load(s_ptr + offs, mask=mask) + tl.load(b_ptr + offs % N, mask=mask)
    tl.store(out_ptr + offs, tl.maximum(v, 0.0), mask=mask)


def _combine(a, b):
    return operator.add(a, b).contiguous()


class ModelNew(nn.Module):
    def __init__(self, N):
        super().__init__()
        self.bias = nn.Parameter(torch.randn(N) * 0.1)

    def forward(self, x, y):
        s = _combine(x, y)
        out = torch.empty_like(s)
        n = s.numel()
        bias_relu_kernel[(triton.cdiv(n, 64),)](s, self.bias, out, n, s.shape[1], BLOCK=64)
        return out
