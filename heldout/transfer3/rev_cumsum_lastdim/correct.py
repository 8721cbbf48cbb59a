"""Suffix sums: one program per row, chunks visited right to left, each loaded reversed and scanned."""
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def _suffix_sum_kernel(x_ptr, y_ptr, N, sx, sy, n_chunks, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    carry = 0.0
    for i in range(0, n_chunks):
        start = (n_chunks - 1 - i) * BLOCK
        idx = start + (BLOCK - 1 - offs)  # reversed inside the chunk
        m = idx < N
        v = tl.load(x_ptr + row * sx + idx, mask=m, other=0.0)
        s = tl.cumsum(v, axis=0) + carry
        tl.store(y_ptr + row * sy + idx, s, mask=m)
        carry += tl.sum(v, axis=0)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        M, N = x.shape
        y = torch.empty((M, N), device=x.device, dtype=x.dtype)
        BLOCK = 128
        _suffix_sum_kernel[(M,)](x, y, N, x.stride(0), y.stride(0), triton.cdiv(N, BLOCK), BLOCK=BLOCK)
        return y
