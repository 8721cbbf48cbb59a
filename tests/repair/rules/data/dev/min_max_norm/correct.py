import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def minmax_norm_kernel(x_ptr, y_ptr, N, row_stride, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    lo_acc = tl.full([BLOCK], float("inf"), tl.float32)
    hi_acc = tl.full([BLOCK], -float("inf"), tl.float32)
    for start in range(0, N, BLOCK):
        cols = start + offs
        x = tl.load(x_ptr + row * row_stride + cols, mask=cols < N, other=float("nan"))
        lo_acc = tl.minimum(lo_acc, tl.where(cols < N, x, float("inf")))
        hi_acc = tl.maximum(hi_acc, tl.where(cols < N, x, -float("inf")))
    lo = tl.min(lo_acc, axis=0)
    hi = tl.max(hi_acc, axis=0)
    for start in range(0, N, BLOCK):
        cols = start + offs
        x = tl.load(x_ptr + row * row_stride + cols, mask=cols < N, other=0.0)
        tl.store(y_ptr + row * row_stride + cols, (x - lo) / (hi - lo), mask=cols < N)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        x = x.contiguous()
        y = torch.empty_like(x)
        minmax_norm_kernel[(x.shape[0],)](x, y, x.shape[1], x.stride(0), BLOCK=64)
        return y
