"""Min-max normalisation along dim 0 with Triton.

Kernel layout: grid over column tiles of width TILE; inside, rows are swept in
TILE-row chunks. Per-column extrema live in registers as TILE-vectors.
"""
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def _colwise_minmax(X, Y, n_rows, n_cols, s_row, s_col, eps, TILE: tl.constexpr):
    c = tl.program_id(0) * TILE + tl.arange(0, TILE)
    r_base = tl.arange(0, TILE)
    cmin = tl.full([TILE], float("inf"), tl.float32)
    cmax = tl.full([TILE], float("-inf"), tl.float32)
    for r0 in range(0, n_rows, TILE):
        r = r0 + r_base
        valid = (r[:, None] < n_rows) & (c[None, :] < n_cols)
        blk = tl.load(X + r[:, None] * s_row + c[None, :] * s_col, mask=valid, other=0.0)
        cmin = tl.minimum(cmin, tl.min(tl.where(valid, blk, float("inf")), axis=0))
        cmax = tl.maximum(cmax, tl.max(tl.where(valid, blk, float("-inf")), axis=0))
    rng = cmax - cmin + eps
    for r0 in range(0, n_rows, TILE):
        r = r0 + r_base
        valid = (r[:, None] < n_rows) & (c[None, :] < n_cols)
        blk = tl.load(X + r[:, None] * s_row + c[None, :] * s_col, mask=valid, other=0.0)
        # broadcast the per-column stats over the rows of the tile
        normed = (blk - cmin[:, None]) / rng[:, None]
        tl.store(Y + r[:, None] * s_row + c[None, :] * s_col, normed, mask=valid)


class ModelNew(nn.Module):
    def __init__(self, eps=1e-6):
        super().__init__()
        self.eps = eps

    def forward(self, x):
        x = x.contiguous()
        n_rows, n_cols = x.shape
        y = torch.empty_like(x)
        TILE = 16
        _colwise_minmax[(triton.cdiv(n_cols, TILE),)](
            x, y, n_rows, n_cols, x.stride(0), x.stride(1), self.eps, TILE=TILE
        )
        return y
