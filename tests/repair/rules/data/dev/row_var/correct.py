import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def row_var_kernel(X, OUT, n, sx, BLOCK: tl.constexpr):
    i = tl.program_id(0)
    j = tl.arange(0, BLOCK)
    keep = j < n
    v = tl.load(X + i * sx + j, mask=keep, other=0.0)
    mu = tl.sum(v, axis=0) / n
    d = tl.where(keep, v - mu, 0.0)
    tl.store(OUT + i, tl.sum(d * d, axis=0) / (n - 1))


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        x = x.contiguous()
        rows, n = x.shape
        out = torch.empty(rows, device=x.device, dtype=x.dtype)
        row_var_kernel[(rows,)](x, out, n, x.stride(0), BLOCK=triton.next_power_of_2(n))
        return out
