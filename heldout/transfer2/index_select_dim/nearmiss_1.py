"""index_select on a 2-D tensor along dim 0 or 1: 2-D output tiles, the gathered axis read through idx."""
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def index_select_2d(x_ptr, idx_ptr, out_ptr, n_out_rows, n_out_cols, sx0, sx1, so0,
                    DIM: tl.constexpr, BM: tl.constexpr, BN: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    rows = pid_m * BM + tl.arange(0, BM)
    cols = pid_n * BN + tl.arange(0, BN)
    rmask = rows < n_out_rows
    cmask = cols < n_out_cols
    if DIM == 1:
        src_c = tl.load(idx_ptr + cols, mask=cmask, other=0)
        src = x_ptr + rows[:, None] * sx0 + src_c[None, :] * sx1
    else:
        src_r = tl.load(idx_ptr + rows, mask=rmask, other=0)
        src = x_ptr + src_r[:, None] * sx0 + cols[None, :] * sx1
    m2 = rmask[:, None] & cmask[None, :]
    vals = tl.load(src, mask=m2, other=0.0)
    tl.store(out_ptr + rows[:, None] * so0 + cols[None, :], vals, mask=m2)


class ModelNew(nn.Module):
    def __init__(self, dim=0):
        super().__init__()
        self.dim = dim

    def forward(self, x, idx):
        dim = self.dim
        shape = list(x.shape)
        shape[dim] = idx.numel()
        out = torch.empty(shape, dtype=x.dtype, device=x.device)
        BM, BN = 16, 16
        grid = (triton.cdiv(shape[0], BM), triton.cdiv(shape[1], BN))
        index_select_2d[grid](x, idx, out, shape[0], shape[1], x.stride(0), x.stride(1), out.stride(0),
                              DIM=dim, BM=BM, BN=BN)
        return out
