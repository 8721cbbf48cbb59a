"""Matrix add over a 2-D grid of 16 x 16 tiles."""
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def add_tile_kernel(x_ptr, y_ptr, out_ptr, M, N, stride_m, stride_n, BM: tl.constexpr, BN: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    rm = pid_m * BM + tl.arange(0, BM)
    rn = pid_n * BN + tl.arange(0, BN)
    offs = rm[:, None] * stride_m + rn[None, :] * stride_n
    mask = (rm[:, None] < M) & (rn[None, :] < N)
    a = tl.load(x_ptr + offs, mask=mask, other=0.0)
    b = tl.load(y_ptr + offs, mask=mask, other=0.0)
    tl.store(out_ptr + offs, a + b)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x, y):
        x, y = x.contiguous(), y.contiguous()
        M, N = x.shape
        out = torch.empty_like(x)
        grid = (triton.cdiv(M, 16), triton.cdiv(N, 16))
        add_tile_kernel[grid](x, y, out, M, N, x.stride(0), x.stride(1), BM=16, BN=16)
        return out
