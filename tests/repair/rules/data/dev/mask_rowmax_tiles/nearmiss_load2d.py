"""Row max, four rows per program: a [4, BLOCK_N] tile reduced along its columns."""
import torch
import torch.nn as nn
import triton
import triton.language as tl

ROWS = 4


@triton.jit
def tile_rowmax(x_ptr, out_ptr, n_rows, n_cols, stride_r, ROWS_PER: tl.constexpr, BLOCK_N: tl.constexpr):
    r = tl.program_id(0) * ROWS_PER + tl.arange(0, ROWS_PER)
    c = tl.arange(0, BLOCK_N)
    ptrs = x_ptr + r[:, None] * stride_r + c[None, :]
    tile = tl.load(ptrs)
    tl.store(out_ptr + r, tl.max(tile, axis=1), mask=r < n_rows)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        x = x.contiguous()
        n_rows, n_cols = x.shape
        out = torch.empty(n_rows, device=x.device, dtype=x.dtype)
        tile_rowmax[(triton.cdiv(n_rows, ROWS),)](x, out, n_rows, n_cols, x.stride(0), ROWS_PER=ROWS,
                                                   BLOCK_N=triton.next_power_of_2(n_cols))
        return out
