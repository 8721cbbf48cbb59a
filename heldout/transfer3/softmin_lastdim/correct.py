"""Softmin: one program per row, the whole row in one block, shifted by the row minimum."""
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def _softmin_kernel(x_ptr, y_ptr, N, sx, sy, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    m = offs < N
    # padding with +inf makes -x = -inf there: it neither wins the max nor adds to the sum
    z = -tl.load(x_ptr + row * sx + offs, mask=m, other=float("inf"))
    z = z - tl.max(z, axis=0)
    e = tl.exp(z)
    tl.store(y_ptr + row * sy + offs, e / tl.sum(e, axis=0), mask=m)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        M, N = x.shape
        y = torch.empty((M, N), device=x.device, dtype=x.dtype)
        _softmin_kernel[(M,)](x, y, N, x.stride(0), y.stride(0), BLOCK=triton.next_power_of_2(N))
        return y
