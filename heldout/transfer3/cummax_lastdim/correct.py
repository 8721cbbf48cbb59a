"""Running max: one program per row, chunked associative scans joined by a carried maximum."""
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def _max_combine(a, b):
    return tl.maximum(a, b)


@triton.jit
def _cummax_kernel(x_ptr, y_ptr, N, sx, sy, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    carry = float("-inf")
    for start in range(0, N, BLOCK):
        c = start + offs
        m = c < N
        v = tl.load(x_ptr + row * sx + c, mask=m, other=float("-inf"))
        run = tl.maximum(tl.associative_scan(v, 0, _max_combine), carry)
        tl.store(y_ptr + row * sy + c, run, mask=m)
        carry = tl.maximum(carry, tl.max(v, axis=0))


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        M, N = x.shape
        y = torch.empty((M, N), device=x.device, dtype=x.dtype)
        _cummax_kernel[(M,)](x, y, N, x.stride(0), y.stride(0), BLOCK=128)
        return y
