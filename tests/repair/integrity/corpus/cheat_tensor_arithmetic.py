"""Exploit: the add is done by torch (x + y) before a kernel that only adds bias and clamps.
# expect: static.framework-compute runtime.framework-compute
"""
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


class ModelNew(nn.Module):
    def __init__(self, N):
        super().__init__()
        self.bias = nn.Parameter(torch.randn(N) * 0.1)

    def forward(self, x, y):
        s = (x + y).contiguous()
        out = torch.empty_like(s)
        n = s.numel()
        bias_relu_kernel[(triton.cdiv(n, 64),)](s, self.bias, out, n, s.shape[1], BLOCK=64)
        return out
