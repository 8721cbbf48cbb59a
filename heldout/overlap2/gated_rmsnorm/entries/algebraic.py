"""Gated RMS norm. rsqrt instead of 1/sqrt, the gate written out as z / (1 + exp(-z)), the weight applied last, and
the mean of squares accumulated over column chunks so that wide rows fit."""
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def gated_rms_kernel(x_ptr, z_ptr, w_ptr, y_ptr, n_cols, stride_x, stride_z, stride_y, eps, CHUNK: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, CHUNK)
    sq = tl.zeros([CHUNK], dtype=tl.float32)
    for c0 in range(0, n_cols, CHUNK):
        cols = c0 + offs
        x = tl.load(x_ptr + row * stride_x + cols, mask=cols < n_cols, other=0.0).to(tl.float32)
        sq += x * x
    r = tl.rsqrt(tl.sum(sq, axis=0) / n_cols + eps)
    for c0 in range(0, n_cols, CHUNK):
        cols = c0 + offs
        m = cols < n_cols
        x = tl.load(x_ptr + row * stride_x + cols, mask=m, other=0.0).to(tl.float32)
        z = tl.load(z_ptr + row * stride_z + cols, mask=m, other=0.0).to(tl.float32)
        w = tl.load(w_ptr + cols, mask=m, other=0.0).to(tl.float32)
        g = z / (1.0 + tl.exp(-z))
        tl.store(y_ptr + row * stride_y + cols, ((x * r) * g * w).to(y_ptr.dtype.element_ty), mask=m)


class ModelNew(nn.Module):
    def __init__(self, hidden: int, eps: float = 1e-6):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(hidden))
        self.eps = eps

    def forward(self, x, z):
        shape = x.shape
        x2, z2 = x.reshape(-1, shape[-1]).contiguous(), z.reshape(-1, shape[-1]).contiguous()
        y = torch.empty_like(x2)
        gated_rms_kernel[(x2.shape[0],)](x2, z2, self.weight, y, shape[-1], x2.stride(0), z2.stride(0), y.stride(0),
                                         self.eps, CHUNK=1024)
        return y.reshape(shape)
