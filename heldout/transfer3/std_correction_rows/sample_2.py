"""Triton std over dim=-1.

Two passes per row in chunks of BLOCK: first the mean, then the sum of squared
deviations. The unbiased estimator divides by (N - 1).
"""
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def _std_lastdim(inp, out, n, row_stride, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    row_ptr = inp + pid * row_stride
    ar = tl.arange(0, BLOCK)

    total = tl.zeros((BLOCK,), dtype=tl.float32)
    for off in range(0, n, BLOCK):
        idx = off + ar
        total += tl.load(row_ptr + idx, mask=idx < n, other=0.0)
    mu = tl.sum(total) / n

    m2 = tl.zeros((BLOCK,), dtype=tl.float32)
    for off in range(0, n, BLOCK):
        idx = off + ar
        v = tl.load(row_ptr + idx, mask=idx < n, other=mu)
        m2 += (v - mu) * (v - mu)

    var = tl.sum(m2) / (n - 1)
    tl.store(out + pid, tl.sqrt(var))


class ModelNew(nn.Module):
    def __init__(self, correction=1):
        super().__init__()
        self.correction = correction

    def forward(self, x):
        rows, n = x.shape
        out = torch.empty(rows, device=x.device, dtype=torch.float32)
        _std_lastdim[(rows,)](x, out, n, x.stride(0), BLOCK=512, num_warps=8)
        return out
