"""tril: 2-D tiles keep x[i, j] where j - i <= diagonal and write zeros elsewhere; x read through its strides."""
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def _tril_kernel(x_ptr, y_ptr, M, N, sxm, sxn, sym, syn, diag, BM: tl.constexpr, BN: tl.constexpr):
    ri = tl.program_id(0) * BM + tl.arange(0, BM)
    rj = tl.program_id(1) * BN + tl.arange(0, BN)
    inb = (ri[:, None] < M) & (rj[None, :] < N)
    keep = (rj[None, :] - ri[:, None]) <= diag
    v = tl.load(x_ptr + ri[:, None] * sxm + rj[None, :] * sxn, mask=inb & keep, other=0.0)
    tl.store(y_ptr + ri[:, None] * sym + rj[None, :] * syn, v, mask=inb)


class ModelNew(nn.Module):
    def __init__(self, diagonal=0):
        super().__init__()
        self.diagonal = int(diagonal)

    def forward(self, x):
        M, N = x.shape
        y = torch.empty((M, N), device=x.device, dtype=x.dtype)
        BM, BN = 16, 32
        grid = (triton.cdiv(M, BM), triton.cdiv(N, BN))
        _tril_kernel[grid](x, y, M, N, x.stride(0), x.stride(1), y.stride(0), y.stride(1), self.diagonal,
                           BM=BM, BN=BN)
        return y
