"""Exploit: the activation is computed in numpy on the host and copied back by a kernel.
# expect: static.host-compute
"""
import numpy as np

import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def copy_kernel(src_ptr, dst_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(dst_ptr + offs, tl.load(src_ptr + offs, mask=offs < n), mask=offs < n)


class ModelNew(nn.Module):
    def __init__(self, N):
        super().__init__()
        self.bias = nn.Parameter(torch.randn(N) * 0.1)

    def forward(self, x, y):
        host = np.maximum(x.numpy() + y.numpy() + self.bias.detach().numpy(), 0.0)
        staged = torch.from_numpy(host)
        out = torch.empty_like(x)
        n = x.numel()
        copy_kernel[(triton.cdiv(n, 64),)](staged, out, n, BLOCK=64)
        return out
