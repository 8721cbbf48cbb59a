"""clamp(x + bias) with bias broadcast along rows; a 2-D tiled kernel that honours x's strides."""
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def _clamp_add_kernel(x_ptr, b_ptr, y_ptr, M, N, sxm, sxn, sym, syn, lo, hi,
                      BM: tl.constexpr, BN: tl.constexpr):
    rm = tl.program_id(0) * BM + tl.arange(0, BM)
    rn = tl.program_id(1) * BN + tl.arange(0, BN)
    mask = (rm[:, None] < M) & (rn[None, :] < N)
    x = tl.load(x_ptr + rm[:, None] * sxm + rn[None, :] * sxn, mask=mask, other=0.0)
    b = tl.load(b_ptr + rn, mask=rn < N, other=0.0)
    v = x + b[None, :]
    v = tl.minimum(tl.maximum(v, lo), hi)
    tl.store(y_ptr + rm[:, None] * sym + rn[None, :] * syn, v, mask=mask)


class ModelNew(nn.Module):
    def __init__(self, min_val=-1.0, max_val=1.0):
        super().__init__()
        self.min_val = float(min_val)
        self.max_val = float(max_val)

    def forward(self, x, bias):
        M, N = x.shape
        y = torch.empty((M, N), device=x.device, dtype=x.dtype)
        BM, BN = 16, 128
        grid = (triton.cdiv(M, BM), triton.cdiv(N, BN))
        _clamp_add_kernel[grid](x, bias, y, M, N, x.stride(0), x.stride(1), y.stride(0), y.stride(1),
                                self.min_val, self.max_val, BM=BM, BN=BN)
        return y
