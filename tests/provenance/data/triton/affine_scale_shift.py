"""Per-channel scale and shift: a flat 1-D launch, channel index recovered from the flat offset."""
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def scale_shift_kernel(x_ptr, w_ptr, b_ptr, out_ptr, n_elements, C, L, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n_elements
    channel = (offs // L) % C
    x = tl.load(x_ptr + offs, mask=mask)
    w = tl.load(w_ptr + channel, mask=mask)
    b = tl.load(b_ptr + channel, mask=mask)
    tl.store(out_ptr + offs, x * w + b, mask=mask)


class ModelNew(nn.Module):
    def __init__(self, C):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(C))
        self.bias = nn.Parameter(torch.randn(C))

    def forward(self, x):
        x = x.contiguous()
        _, C, L = x.shape
        out = torch.empty_like(x)
        n = x.numel()
        BLOCK = 1024
        scale_shift_kernel[(triton.cdiv(n, BLOCK),)](x, self.weight, self.bias, out, n, C, L, BLOCK=BLOCK)
        return out
