"""Cosine similarity along dim 1."""
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def cos_sim(x_ptr, y_ptr, o_ptr, D, sx, sy, eps, CH: tl.constexpr):
    i = tl.program_id(0)
    j = tl.arange(0, CH)
    xy = tl.zeros([CH], tl.float32)
    xx = tl.zeros([CH], tl.float32)
    yy = tl.zeros([CH], tl.float32)
    for k in range(0, D, CH):
        c = k + j
        ok = c < D
        x = tl.load(x_ptr + i * sx + c, mask=ok, other=0.0).to(tl.float32)
        y = tl.load(y_ptr + i * sy + c, mask=ok, other=0.0).to(tl.float32)
        xy += x * y
        xx += x * x
        yy += y * y
    den = tl.maximum(tl.sqrt(tl.sum(xx, axis=0)) * tl.sqrt(tl.sum(yy, axis=0)), eps)
    tl.store(o_ptr + i, tl.sum(xy, axis=0) / den)


class ModelNew(nn.Module):
    def __init__(self, eps: float = 1e-8):
        super().__init__()
        self.eps = eps

    def forward(self, a, b):
        n, d = a.shape
        o = torch.empty(n, device=a.device, dtype=torch.float32)
        cos_sim[(n,)](a, b, o, d, a.stride(0), b.stride(0), self.eps, CH=256)
        return o
