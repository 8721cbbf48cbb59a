"""Row flip: program p copies input row p to output row M - 1 - p in one padded block."""
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def flip_rows_kernel(src, dst, n_rows, n_cols, BLOCK_N: tl.constexpr):
    pid = tl.program_id(0)
    offsets = tl.arange(0, BLOCK_N)
    row = tl.load(src + pid * n_cols + offsets)
    tl.store(dst + (n_rows - 1 - pid) * n_cols + offsets, row)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        x = x.contiguous()
        M, N = x.shape
        out = torch.empty((M, N), device=x.device, dtype=x.dtype)
        flip_rows_kernel[(M,)](x, out, M, N, BLOCK_N=triton.next_power_of_2(N))
        return out
