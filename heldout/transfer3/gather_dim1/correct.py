"""Gather along dim 1: one program per row, a loop over the index columns, x addressed through its strides."""
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def _gather_kernel(x_ptr, i_ptr, y_ptr, K, sxm, sxn, sim, sik, sym, syk, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    for k0 in range(0, K, BLOCK):
        k = k0 + offs
        m = k < K
        col = tl.load(i_ptr + row * sim + k * sik, mask=m, other=0)
        v = tl.load(x_ptr + row * sxm + col * sxn, mask=m, other=0.0)
        tl.store(y_ptr + row * sym + k * syk, v, mask=m)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x, index):
        M, K = index.shape
        y = torch.empty((M, K), device=x.device, dtype=x.dtype)
        _gather_kernel[(M,)](x, index, y, K, x.stride(0), x.stride(1), index.stride(0), index.stride(1),
                             y.stride(0), y.stride(1), BLOCK=128)
        return y
