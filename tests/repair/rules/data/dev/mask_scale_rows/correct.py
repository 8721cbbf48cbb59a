"""Row abs-max scaling: one program per row, the row in one block."""
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def scale_rows_kernel(x_ptr, y_ptr, n_rows, n_cols, stride, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * stride + cols, mask=mask, other=0.0)
    peak = tl.max(tl.abs(x), axis=0)
    tl.store(y_ptr + row * stride + cols, x / peak, mask=mask)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        x = x.contiguous()
        rows, cols = x.shape
        y = torch.empty_like(x)
        scale_rows_kernel[(rows,)](x, y, rows, cols, x.stride(0), BLOCK=triton.next_power_of_2(cols))
        return y
