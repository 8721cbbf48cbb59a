"""Sum over the middle dimension with a loop-tail bug: the row loop stops at the last whole block of 64 rows."""
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def sum_dim1_kernel(x_ptr, out_ptr, R, C, stride_b, stride_r, stride_c,
                    BLOCK_R: tl.constexpr, BLOCK_C: tl.constexpr):
    b = tl.program_id(0)
    cols = tl.program_id(1) * BLOCK_C + tl.arange(0, BLOCK_C)
    rows = tl.arange(0, BLOCK_R)
    acc = tl.zeros([BLOCK_C], tl.float32)
    for r0 in range(0, R - BLOCK_R + 1, BLOCK_R):
        r = r0 + rows
        mask = (r[:, None] < R) & (cols[None, :] < C)
        tile = tl.load(x_ptr + b * stride_b + r[:, None] * stride_r + cols[None, :] * stride_c, mask=mask, other=0.0)
        acc += tl.sum(tile, axis=0)
    tl.store(out_ptr + b * C + cols, acc, mask=cols < C)


class ModelNew(nn.Module):
    def __init__(self, dim: int):
        super(ModelNew, self).__init__()
        self.dim = dim

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        assert self.dim == 1 and x.dim() == 3
        B, R, C = x.shape
        out = torch.empty(B, 1, C, device=x.device, dtype=x.dtype)
        BLOCK_R, BLOCK_C = 64, 64
        grid = (B, triton.cdiv(C, BLOCK_C))
        sum_dim1_kernel[grid](x, out, R, C, x.stride(0), x.stride(1), x.stride(2), BLOCK_R=BLOCK_R, BLOCK_C=BLOCK_C)
        return out
