"""Row max in 64-wide chunks: a running elementwise maximum, reduced once at the end."""
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def rowmax_kernel(inp, outp, D, stride, CHUNK: tl.constexpr):
    r = tl.program_id(axis=0)
    lane = tl.arange(0, CHUNK)
    best = tl.full((CHUNK,), float("-inf"), dtype=tl.float32)
    for c0 in range(0, D, CHUNK):
        idx = c0 + lane
        v = tl.load(inp + r * stride + idx)
        best = tl.maximum(best, v)
    tl.store(outp + r, tl.max(best, axis=0))


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        x = x.contiguous()
        out = x.new_empty(x.shape[0])
        rowmax_kernel[(x.shape[0],)](x, out, x.shape[1], x.stride(0), CHUNK=64)
        return out
