"""The launch lives in a module helper with a meta-parameter grid lambda."""
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def _relu(v):
    return tl.maximum(v, 0.0)


@triton.jit
def add_bias_relu_kernel(x_ptr, y_ptr, b_ptr, out_ptr, n, N, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    v = tl.load(x_ptr + offs, mask=mask) + tl.load(y_ptr + offs, mask=mask) + tl.load(b_ptr + offs % N, mask=mask)
    tl.store(out_ptr + offs, _relu(v), mask=mask)


def _grid(n):
    return lambda meta: (triton.cdiv(n, meta["BLOCK"]),)


def add_bias_relu(x, y, bias, block=64):
    x, y = x.contiguous(), y.contiguous()
    out = torch.empty_like(x)
    n = x.numel()
    add_bias_relu_kernel[_grid(n)](x, y, bias, out, n, bias.numel(), BLOCK=block)
    return out


class ModelNew(nn.Module):
    def __init__(self, N):
        super().__init__()
        self.bias = nn.Parameter(torch.randn(N) * 0.1)

    def forward(self, x, y):
        return add_bias_relu(x, y, self.bias)
