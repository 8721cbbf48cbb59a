"""Row min: each program reduces a tile of ROWS whole rows."""
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def row_min_kernel(x_ptr, out_ptr, n_rows, n_cols, x_row_stride, ROWS: tl.constexpr, BLOCK: tl.constexpr):
    rows = tl.program_id(0) * ROWS + tl.arange(0, ROWS)
    cols = tl.arange(0, BLOCK)
    mask = (rows[:, None] < n_rows) & (cols[None, :] < n_cols)
    x = tl.load(x_ptr + rows[:, None] * x_row_stride + cols[None, :], mask=mask, other=float("inf"))
    tl.store(out_ptr + rows, tl.min(x, axis=1), mask=rows < n_rows)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        x = x.contiguous()
        n_rows, n_cols = x.shape
        out = torch.empty(n_rows, device=x.device, dtype=x.dtype)
        ROWS = 4
        grid = (triton.cdiv(n_rows, ROWS),)
        row_min_kernel[grid](x, out, n_rows, n_cols, x.stride(0), ROWS=ROWS, BLOCK=triton.next_power_of_2(n_cols))
        return out
