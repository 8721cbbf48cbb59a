"""Residual add + RMSNorm: ROWS rows per program as one 2-D [ROWS, BLOCK_N] tile (the whole row fits in one block)."""
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def add_rms_norm_rows_kernel(x_ptr, r_ptr, w_ptr, out_ptr, M, N, stride_xm, stride_rm, stride_om, eps,
                             ROWS: tl.constexpr, BLOCK_N: tl.constexpr):
    row_ids = tl.program_id(0) * ROWS + tl.arange(0, ROWS)
    col_ids = tl.arange(0, BLOCK_N)
    row_ok = row_ids < M
    col_ok = col_ids < N
    tile_mask = row_ok[:, None] & col_ok[None, :]
    x = tl.load(x_ptr + row_ids[:, None] * stride_xm + col_ids[None, :], mask=tile_mask, other=0.0)
    res = tl.load(r_ptr + row_ids[:, None] * stride_rm + col_ids[None, :], mask=tile_mask, other=0.0)
    h = x.to(tl.float32) + res.to(tl.float32)
    mean_sq = tl.sum(x * x, axis=1) / N
    r = tl.rsqrt(mean_sq + eps)
    w = tl.load(w_ptr + col_ids, mask=col_ok, other=0.0)
    y = h * r[:, None] * w[None, :]
    tl.store(out_ptr + row_ids[:, None] * stride_om + col_ids[None, :], y, mask=tile_mask)


class ModelNew(nn.Module):
    def __init__(self, N, eps=1e-6):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.rand(N) + 0.5)

    def forward(self, x, residual):
        if x.stride(1) != 1:
            x = x.contiguous()
        residual = residual.contiguous()
        M, N = x.shape
        out = torch.empty((M, N), dtype=x.dtype, device=x.device)
        ROWS = 4
        BLOCK_N = triton.next_power_of_2(N)
        add_rms_norm_rows_kernel[(triton.cdiv(M, ROWS),)](x, residual, self.weight, out, M, N, x.stride(0),
                                                          residual.stride(0), out.stride(0), self.eps,
                                                          ROWS=ROWS, BLOCK_N=BLOCK_N)
        return out
