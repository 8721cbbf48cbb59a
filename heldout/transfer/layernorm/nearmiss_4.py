"""LayerNorm: one program per row, the whole row in a single block; mean and variance from one pass over the
data (sum and sum of squares)."""
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def layernorm_kernel(x_ptr, w_ptr, b_ptr, y_ptr, n_cols, row_stride, eps, BLOCK_N: tl.constexpr):
    row_idx = tl.program_id(0)
    offs_n = tl.arange(0, BLOCK_N)
    mask = offs_n < n_cols
    x = tl.load(x_ptr + row_idx * row_stride + offs_n, mask=mask, other=0.0).to(tl.float32)
    s1 = tl.sum(x, axis=0)
    s2 = tl.sum(x * x, axis=0)
    mean = s1 / n_cols
    var = s2 / n_cols - mean * mean
    inv_std = tl.rsqrt(var + eps)
    w = tl.load(w_ptr + offs_n, mask=mask, other=1.0)
    b = tl.load(b_ptr + offs_n, mask=mask, other=0.0)
    y = (x - mean) * inv_std * w + b
    tl.store(y_ptr + row_idx * row_stride + offs_n, y, mask=mask)


class ModelNew(nn.Module):
    def __init__(self, N, eps=1e-5):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.randn(N))
        self.bias = nn.Parameter(torch.randn(N))

    def forward(self, x):
        x = x.contiguous()
        n_rows, n_cols = x.shape
        y = torch.empty_like(x)
        BLOCK_N = triton.next_power_of_2(n_cols)
        layernorm_kernel[(n_rows,)](x, self.weight, self.bias, y, n_cols, x.stride(0), self.eps, BLOCK_N=BLOCK_N)
        return y
