"""Cumulative sum along the last dim: a 2-D grid of (row, column tile), each tile scanned with tl.cumsum."""
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def _cumsum_tile(X, Y, N, stride_x0, stride_x1, stride_y0, TILE: tl.constexpr):
    row = tl.program_id(0)
    tile = tl.program_id(1)
    offs = tile * TILE + tl.arange(0, TILE)
    mask = offs < N
    vals = tl.load(X + row * stride_x0 + offs * stride_x1, mask=mask, other=0.0)
    scanned = tl.cumsum(vals, axis=0)
    tl.store(Y + row * stride_y0 + offs, scanned, mask=mask)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        M, N = x.shape
        y = torch.empty(M, N, device=x.device, dtype=x.dtype)
        TILE = 128
        grid = (M, triton.cdiv(N, TILE))
        _cumsum_tile[grid](x, y, N, x.stride(0), x.stride(1), y.stride(0), TILE=TILE)
        return y
