import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def col_scale_kernel(in_ptr, out_ptr, num_rows, num_cols, row_stride, eps,
                     ROWS: tl.constexpr, COLS: tl.constexpr):
    col_block = tl.program_id(axis=0)
    col_idx = col_block * COLS + tl.arange(0, COLS)
    col_ok = col_idx < num_cols

    mins = tl.full((COLS,), 3.4e38, tl.float32)
    maxs = tl.full((COLS,), -3.4e38, tl.float32)
    for base in range(0, num_rows, ROWS):
        row_idx = base + tl.arange(0, ROWS)
        row_ok = row_idx < num_cols
        ok = row_ok[:, None] & col_ok[None, :]
        vals = tl.load(in_ptr + row_idx[:, None] * row_stride + col_idx[None, :], mask=ok, other=0.0)
        mins = tl.minimum(mins, tl.min(tl.where(ok, vals, 3.4e38), axis=0))
        maxs = tl.maximum(maxs, tl.max(tl.where(ok, vals, -3.4e38), axis=0))

    inv = 1.0 / (maxs - mins + eps)
    for base in range(0, num_rows, ROWS):
        row_idx = base + tl.arange(0, ROWS)
        row_ok = row_idx < num_cols
        ok = row_ok[:, None] & col_ok[None, :]
        offs = row_idx[:, None] * row_stride + col_idx[None, :]
        vals = tl.load(in_ptr + offs, mask=ok, other=0.0)
        tl.store(out_ptr + offs, (vals - mins[None, :]) * inv[None, :], mask=ok)


class ModelNew(nn.Module):
    def __init__(self, eps=1e-6):
        super().__init__()
        self.eps = eps

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x.contiguous()
        num_rows, num_cols = x.shape
        out = torch.empty_like(x)
        ROWS, COLS = 32, 32
        grid = (triton.cdiv(num_cols, COLS),)
        col_scale_kernel[grid](x, out, num_rows, num_cols, x.stride(0), self.eps, ROWS=ROWS, COLS=COLS)
        return out
