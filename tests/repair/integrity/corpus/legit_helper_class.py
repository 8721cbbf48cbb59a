"""A small launcher object with __call__, built in __init__ and called from forward."""
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


class _Launcher:
    def __init__(self, block):
        self.block = block

    def grid(self, n):
        return (triton.cdiv(n, self.block),)

    def __call__(self, x, y, bias):
        out = torch.empty_like(x)
        n = x.numel()
        add_bias_relu_kernel[self.grid(n)](x, y, bias, out, n, bias.shape[0], BLOCK=self.block)
        return out


class ModelNew(nn.Module):
    def __init__(self, N):
        super().__init__()
        self.bias = nn.Parameter(torch.randn(N) * 0.1)
        self.launch = _Launcher(block=64)

    def forward(self, x, y):
        return self.launch(x.contiguous(), y.contiguous(), self.bias)
