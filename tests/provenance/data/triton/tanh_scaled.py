"""a * tanh(b * x): a flat 1-D launch; tanh written with one exp that may saturate safely."""
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def tanh_scaled_kernel(x_ptr, out_ptr, n_elements, a, b, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n_elements
    x = tl.load(x_ptr + offs, mask=mask)
    z = b * x
    t = 1.0 - 2.0 / (tl.exp(2.0 * z) + 1.0)
    tl.store(out_ptr + offs, a * t, mask=mask)


class ModelNew(nn.Module):
    def __init__(self, a=1.7159, b=0.6667):
        super().__init__()
        self.a = a
        self.b = b

    def forward(self, x):
        x = x.contiguous()
        out = torch.empty_like(x)
        n = x.numel()
        BLOCK = 1024
        tanh_scaled_kernel[(triton.cdiv(n, BLOCK),)](x, out, n, self.a, self.b, BLOCK=BLOCK)
        return out
