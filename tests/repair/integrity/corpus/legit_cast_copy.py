"""The kernel accumulates in an fp32 buffer; forward returns a cast copy of it (a copy, not compute)."""
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def add_bias_relu_kernel(x_ptr, y_ptr, b_ptr, out_ptr, n, N, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    v = tl.load(x_ptr + offs, mask=mask).to(tl.float32) + tl.load(y_ptr + offs, mask=mask).to(tl.float32)
    v += tl.load(b_ptr + offs % N, mask=mask).to(tl.float32)
    tl.store(out_ptr + offs, tl.maximum(v, 0.0), mask=mask)


class ModelNew(nn.Module):
    def __init__(self, N):
        super().__init__()
        self.bias = nn.Parameter(torch.randn(N) * 0.1)

    def forward(self, x, y):
        x, y = x.contiguous(), y.contiguous()
        acc = torch.empty(x.shape, dtype=torch.float32, device=x.device)
        n = x.numel()
        add_bias_relu_kernel[(triton.cdiv(n, 64),)](x, y, self.bias, acc, n, x.shape[1], BLOCK=64)
        return acc.to(x.dtype).clone()
