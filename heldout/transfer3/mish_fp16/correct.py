"""Mish in fp16: a flat 1-D kernel, fp32 math, overflow-free softplus and tanh."""
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def _mish_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m, other=0.0).to(tl.float32)
    # softplus(x) = max(x, 0) + log(1 + exp(-|x|)): the exponent is never positive
    sp = tl.maximum(x, 0.0) + tl.log(1.0 + tl.exp(-tl.abs(x)))
    # tanh of a non-negative argument through exp(-2 sp), which cannot overflow
    e = tl.exp(-2.0 * sp)
    y = x * (1.0 - e) / (1.0 + e)
    tl.store(y_ptr + offs, y.to(tl.float16), mask=m)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        x = x.contiguous()
        y = torch.empty_like(x)
        n = x.numel()
        BLOCK = 1024
        _mish_kernel[(triton.cdiv(n, BLOCK),)](x, y, n, BLOCK=BLOCK)
        return y
