"""Grid and block choosers built as lambdas in __init__; their bodies only do integer arithmetic."""
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
        self.block_for = lambda n: min(128, max(16, triton.next_power_of_2(n)))
        self.grid_for = lambda n, block: (triton.cdiv(n, block),)

    def forward(self, x, y):
        x, y = x.contiguous(), y.contiguous()
        out = torch.empty_like(x)
        n = x.numel()
        block = self.block_for(n)
        add_bias_relu_kernel[self.grid_for(n, block)](x, y, self.bias, out, n, x.shape[1], BLOCK=block)
        return out
