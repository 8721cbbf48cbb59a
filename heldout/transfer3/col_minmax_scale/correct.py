"""Column min-max scaling: one program per column block; a row loop for the extrema, a second to write."""
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def _col_minmax_kernel(x_ptr, y_ptr, M, N, sxm, sxn, sym, syn, eps, BM: tl.constexpr, BN: tl.constexpr):
    cols = tl.program_id(0) * BN + tl.arange(0, BN)
    cmask = cols < N
    rows0 = tl.arange(0, BM)
    hi = tl.full([BM, BN], float("-inf"), tl.float32)
    lo = tl.full([BM, BN], float("inf"), tl.float32)
    for start in range(0, M, BM):
        rows = start + rows0
        m = (rows[:, None] < M) & cmask[None, :]
        v = tl.load(x_ptr + rows[:, None] * sxm + cols[None, :] * sxn, mask=m, other=0.0)
        hi = tl.maximum(hi, tl.where(m, v, float("-inf")))
        lo = tl.minimum(lo, tl.where(m, v, float("inf")))
    cmax = tl.max(hi, axis=0)
    cmin = tl.min(lo, axis=0)
    denom = cmax - cmin + eps
    for start in range(0, M, BM):
        rows = start + rows0
        m = (rows[:, None] < M) & cmask[None, :]
        v = tl.load(x_ptr + rows[:, None] * sxm + cols[None, :] * sxn, mask=m, other=0.0)
        out = (v - cmin[None, :]) / denom[None, :]
        tl.store(y_ptr + rows[:, None] * sym + cols[None, :] * syn, out, mask=m)


class ModelNew(nn.Module):
    def __init__(self, eps=1e-6):
        super().__init__()
        self.eps = float(eps)

    def forward(self, x):
        M, N = x.shape
        y = torch.empty((M, N), device=x.device, dtype=x.dtype)
        BM, BN = 16, 32
        _col_minmax_kernel[(triton.cdiv(N, BN),)](x, y, M, N, x.stride(0), x.stride(1), y.stride(0),
                                                   y.stride(1), self.eps, BM=BM, BN=BN)
        return y
