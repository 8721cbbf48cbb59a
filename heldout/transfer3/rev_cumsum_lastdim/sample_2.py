"""
Reverse cumulative sum along the last dimension.

    out[j] = sum_{k >= j} x[k] = sum(x) - sum_{k < j} x[k]

The whole row fits in one block (BLOCK = next power of two >= N), so each
program computes the row total and an inclusive prefix scan and combines them.
"""
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def _rcumsum(X, Y, N, row_stride, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    x = tl.load(X + pid * row_stride + cols)
    total = tl.sum(x, axis=0)
    incl = tl.cumsum(x, axis=0)
    out = total - incl + x
    tl.store(Y + pid * row_stride + cols, out, mask=cols < N)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        x = x.contiguous()
        y = torch.empty_like(x)
        M, N = x.shape
        _rcumsum[(M,)](x, y, N, x.stride(0), BLOCK=triton.next_power_of_2(N), num_warps=4)
        return y
