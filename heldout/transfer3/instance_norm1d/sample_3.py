import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def _row_stats(ptr, L, BLOCK: tl.constexpr):
    # mean and (unbiased) variance of one row, in chunks
    s = tl.zeros([BLOCK], tl.float32)
    for off in range(0, L, BLOCK):
        o = off + tl.arange(0, BLOCK)
        s += tl.load(ptr + o, mask=o < L, other=0.0)
    mean = tl.sum(s, 0) / L
    q = tl.zeros([BLOCK], tl.float32)
    for off in range(0, L, BLOCK):
        o = off + tl.arange(0, BLOCK)
        v = tl.load(ptr + o, mask=o < L, other=0.0)
        q += tl.where(o < L, (v - mean) * (v - mean), 0.0)
    var = tl.sum(q, 0) / (L - 1)
    return mean, var


@triton.jit
def inorm_kernel(x_ptr, y_ptr, L, eps, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    row_in = x_ptr + pid * L
    row_out = y_ptr + pid * L
    mean, var = _row_stats(row_in, L, BLOCK)
    inv_std = 1.0 / tl.sqrt(var + eps)
    for off in range(0, L, BLOCK):
        o = off + tl.arange(0, BLOCK)
        v = tl.load(row_in + o, mask=o < L, other=0.0)
        tl.store(row_out + o, (v - mean) * inv_std, mask=o < L)


class ModelNew(nn.Module):
    def __init__(self, eps=1e-5):
        super().__init__()
        self.eps = eps

    def forward(self, x):
        x = x.contiguous()
        b, c, l = x.shape
        y = torch.empty_like(x)
        inorm_kernel[(b * c,)](x, y, l, self.eps, BLOCK=128)
        return y
