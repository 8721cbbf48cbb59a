"""
torch.std(x, dim=-1, correction=c) with Triton.

Several rows per program: the kernel holds a [ROWS, BLOCK] tile, sweeps the
columns in BLOCK-wide steps and keeps per-row running sums (two passes: mean,
then squared deviations).
"""
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def _std_rows_kernel(X, OUT, n_rows, n_cols, stride, denom, ROWS: tl.constexpr, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    rows = pid * ROWS + tl.arange(0, ROWS)
    row_ok = rows < n_rows
    cols0 = tl.arange(0, BLOCK)

    acc = tl.zeros([ROWS, BLOCK], dtype=tl.float32)
    for c0 in range(0, n_cols, BLOCK):
        cols = c0 + cols0
        acc += tl.load(X + rows[:, None] * stride + cols[None, :])
    mean = tl.sum(acc, axis=1) / n_cols

    sq = tl.zeros([ROWS, BLOCK], dtype=tl.float32)
    for c0 in range(0, n_cols, BLOCK):
        cols = c0 + cols0
        v = tl.load(X + rows[:, None] * stride + cols[None, :])
        d = v - mean[:, None]
        sq += d * d
    std = tl.sqrt(tl.sum(sq, axis=1) / denom)
    tl.store(OUT + rows, std, mask=row_ok)


class ModelNew(nn.Module):
    def __init__(self, correction=1):
        super().__init__()
        self.correction = correction

    def forward(self, x):
        x = x.contiguous()
        n_rows, n_cols = x.shape
        out = torch.empty(n_rows, device=x.device, dtype=x.dtype)
        ROWS, BLOCK = 4, 128
        grid = (triton.cdiv(n_rows, ROWS),)
        _std_rows_kernel[grid](x, out, n_rows, n_cols, x.stride(0), float(n_cols - self.correction),
                               ROWS=ROWS, BLOCK=BLOCK, num_warps=4)
        return out
