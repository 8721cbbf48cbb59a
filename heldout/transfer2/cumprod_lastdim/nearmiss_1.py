"""Row cumprod: 64-wide chunks scanned with tl.associative_scan, a running carry multiplies each chunk."""
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def _times(a, b):
    return a * b


@triton.jit
def cumprod_kernel(x_ptr, y_ptr, n_cols, sx_row, sx_col, sy_row, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    carry = 1.0
    for c0 in range(0, n_cols, BLOCK):
        cols = c0 + offs
        m = cols < n_cols
        v = tl.load(x_ptr + row * sx_row + cols * sx_col, mask=m, other=1.0)
        scanned = tl.associative_scan(v, 0, _times)
        tl.store(y_ptr + row * sy_row + cols, scanned * carry, mask=m)
        carry = tl.reduce(v, 0, _times)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        M, N = x.shape
        y = torch.empty((M, N), dtype=x.dtype, device=x.device)
        cumprod_kernel[(M,)](x, y, N, x.stride(0), x.stride(1), y.stride(0), BLOCK=64)
        return y
