"""Row product: per-lane running products over 64-wide chunks, then a tl.reduce with a multiply combiner."""
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def _mul_combine(a, b):
    return a * b


@triton.jit
def row_prod_kernel(x_ptr, out_ptr, n_cols, row_stride, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    base = x_ptr + row * row_stride
    offs = tl.arange(0, BLOCK)
    acc = tl.full([BLOCK], 1.0, tl.float32)
    for start in range(0, n_cols, BLOCK):
        acc = tl.full([BLOCK], 1.0, tl.float32)
        idx = start + offs
        x = tl.load(base + idx, mask=idx < n_cols, other=1.0)
        acc = acc * x.to(tl.float32)
    total = tl.reduce(acc, 0, _mul_combine)
    tl.store(out_ptr + row, total)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        if x.stride(-1) != 1:
            x = x.contiguous()
        M, N = x.shape
        out = torch.empty(M, dtype=x.dtype, device=x.device)
        row_prod_kernel[(M,)](x, out, N, x.stride(0), BLOCK=64)
        return out
