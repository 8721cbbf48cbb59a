"""The kernel is chosen from a module-level table and kept on self; launched through the attribute."""
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


KERNELS = {"relu": add_bias_relu_kernel}


class ModelNew(nn.Module):
    def __init__(self, N, act="relu"):
        super().__init__()
        self.bias = nn.Parameter(torch.randn(N) * 0.1)
        self.kernel = KERNELS[act]
        self.block = 64

    def forward(self, x, y):
        x, y = x.contiguous(), y.contiguous()
        out = torch.empty_like(x)
        n = x.numel()
        self.kernel[(triton.cdiv(n, self.block),)](x, y, self.bias, out, n, x.shape[1], BLOCK=self.block)
        return out
