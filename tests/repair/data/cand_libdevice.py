"""Test fixture: a * tanh(b * x) (examples/tanh_scaled) through libdevice, as GPU kernels are often written."""
import torch
import torch.nn as nn
import triton
import triton.language as tl
from triton.language.extra import libdevice
from triton.language.extra.libdevice import pow as lpow


@triton.jit
def tanh_scaled_kernel(x_ptr, out_ptr, n_elements, a, b, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n_elements
    x = tl.load(x_ptr + offs, mask=mask)
    t = libdevice.tanh(b * x)
    t = lpow(libdevice.sqrt(t * t), 1.0) * tl.where(t < 0, -1.0, 1.0)  # |t| * sign(t): more symbols, same value
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
        tanh_scaled_kernel[(triton.cdiv(n, 1024),)](x, out, n, self.a, self.b, BLOCK=1024)
        return out
