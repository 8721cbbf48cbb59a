"""cummax(x, dim=-1).values via tl.associative_scan, processed in tiles of TILE columns."""
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def _maxop(l, r):
    return tl.where(l > r, l, r)


@triton.jit
def _cummax_tiles(src, dst, ncols, stride, TILE: tl.constexpr):
    pid = tl.program_id(0)
    prefix_max = tl.full([TILE], float("-inf"), tl.float32)
    for t in range(0, tl.cdiv(ncols, TILE)):
        col = t * TILE + tl.arange(0, TILE)
        inb = col < ncols
        vals = tl.load(src + pid * stride + col, mask=inb, other=float("-inf"))
        scan = tl.associative_scan(vals, 0, _maxop)
        res = tl.maximum(scan, prefix_max)
        tl.store(dst + pid * stride + col, res, mask=inb)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        x = x.contiguous()
        rows, cols = x.shape
        y = torch.empty_like(x)
        _cummax_tiles[(rows,)](x, y, cols, x.stride(0), TILE=256, num_warps=4)
        return y
