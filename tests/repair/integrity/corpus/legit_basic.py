"""The plain correct candidate: one elementwise kernel over the flattened rows."""
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def add_bias_relu_kernel(x_ptr, y_ptr, b_ptr, out_ptr, n, N, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0)
    y = tl.load(y_ptr + offs, mask=mask, other=0.0)
    b = tl.load(b_ptr + offs % N, mask=mask, other=0.0)
    tl.store(out_ptr + offs, tl.maximum(x + y + b, 0.0), mask=mask)


class ModelNew(nn.Module):
    def __init__(self, N):
        super().__init__()
        self.bias = nn.Parameter(torch.randn(N) * 0.1)

    def forward(self, x, y):
        x = x.contiguous()
        y = y.contiguous()
        out = torch.empty_like(x)
        n = x.numel()
        BLOCK = 64
        add_bias_relu_kernel[(triton.cdiv(n, BLOCK),)](x, y, self.bias, out, n, x.shape[-1], BLOCK=BLOCK)
        return out
