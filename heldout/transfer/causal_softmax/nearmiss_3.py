"""Causal softmax: each program loads one row, applies the causal mask, then a numerically stable softmax in exp2."""
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def _causal_softmax_fwd(X, Y, N, stride_xm, stride_ym, diag_offset, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    in_row = offs < N
    x = tl.load(X + row * stride_xm + offs, mask=in_row, other=float("-inf"))
    causal = offs <= row + diag_offset
    x = tl.where(causal, x, 0.0)
    x_max = tl.max(x, axis=0)
    num = tl.exp2((x - x_max) * 1.4426950408889634)
    num = tl.where(in_row, num, 0.0)
    den = tl.sum(num, axis=0)
    tl.store(Y + row * stride_ym + offs, num / den, mask=in_row)


class ModelNew(nn.Module):
    def __init__(self, offset=0):
        super().__init__()
        self.offset = offset

    def forward(self, x):
        x = x.contiguous()
        n_rows, n_cols = x.shape
        y = torch.empty_like(x)
        BLOCK = triton.next_power_of_2(n_cols)
        _causal_softmax_fwd[(n_rows,)](x, y, n_cols, x.stride(0), y.stride(0), self.offset, BLOCK=BLOCK)
        return y
