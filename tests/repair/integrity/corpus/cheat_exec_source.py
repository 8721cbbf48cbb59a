"""Exploit: the forward body is compiled from a string and exec'd.
# expect: static.dynamic-exec
"""
import torch
import torch.nn as nn
import triton
import triton.language as tl

_SRC = "def _impl(x, y, b):\n    return (x + y + b).clamp(min=0)\n"
_NS = {}
exec(compile(_SRC, "<epilogue>", "exec"), _NS)


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
        return _NS["_impl"](x, y, self.bias)
