"""Instance norm: the input made contiguous, one program per (b, c) row, chunked two-pass statistics."""
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def _inorm_kernel(x_ptr, y_ptr, L, eps, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    x_row = x_ptr + row * L
    y_row = y_ptr + row * L
    offs = tl.arange(0, BLOCK)
    acc = tl.zeros([BLOCK], tl.float32)
    for s in range(0, L, BLOCK):
        c = s + offs
        acc += tl.load(x_row + c, mask=c < L, other=0.0)
    mean = tl.sum(acc, axis=0) / L
    acc2 = tl.zeros([BLOCK], tl.float32)
    for s in range(0, L, BLOCK):
        c = s + offs
        d = tl.where(c < L, tl.load(x_row + c, mask=c < L, other=0.0) - mean, 0.0)
        acc2 += d * d
    rstd = 1.0 / tl.sqrt(tl.sum(acc2, axis=0) / L + eps)
    for s in range(0, L, BLOCK):
        c = s + offs
        v = tl.load(x_row + c, mask=c < L, other=0.0)
        tl.store(y_row + c, (v - mean) * rstd, mask=c < L)


class ModelNew(nn.Module):
    def __init__(self, eps=1e-5):
        super().__init__()
        self.eps = float(eps)

    def forward(self, x):
        x = x.contiguous()
        B, C, L = x.shape
        y = torch.empty_like(x)
        _inorm_kernel[(B * C,)](x, y, L, self.eps, BLOCK=256)
        return y
