"""Row cumsum: one program per row, scanning column blocks in order and carrying the running total."""
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def cumsum_row_kernel(x_ptr, y_ptr, n_cols, stride_xr, stride_xc, stride_yr, BLOCK: tl.constexpr):
    r = tl.program_id(axis=0)
    carry = 0.0
    for start in range(0, n_cols, BLOCK):
        c = start + tl.arange(0, BLOCK)
        m = c < n_cols
        v = tl.load(x_ptr + r * stride_xr + c * stride_xc, mask=m, other=0.0).to(tl.float32)
        tl.store(y_ptr + r * stride_yr + c, tl.cumsum(v, axis=0) + carry, mask=m)
        carry += tl.sum(v, axis=0)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        n_rows, n_cols = x.shape
        y = torch.empty((n_rows, n_cols), device=x.device, dtype=x.dtype)
        BLOCK = min(triton.next_power_of_2(n_cols), 128)
        cumsum_row_kernel[(n_rows,)](x, y, n_cols, x.stride(0), x.stride(1), y.stride(0), BLOCK=BLOCK)
        return y
