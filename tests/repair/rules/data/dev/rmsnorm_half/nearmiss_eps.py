import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def rmsnorm_kernel(X, W, Y, stride, n_cols, eps, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    m = offs < n_cols
    x = tl.load(X + row * stride + offs, mask=m, other=0.0).to(tl.float32)
    ms = tl.sum(x * x, axis=0) / n_cols
    inv = 1.0 / (tl.sqrt(ms) + eps)
    w = tl.load(W + offs, mask=m, other=0.0).to(tl.float32)
    tl.store(Y + row * stride + offs, (x * inv * w).to(tl.float16), mask=m)


class ModelNew(nn.Module):
    def __init__(self, N, eps=1e-6):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.randn(N).half())

    def forward(self, x):
        x = x.contiguous()
        M, N = x.shape
        y = torch.empty_like(x)
        rmsnorm_kernel[(M,)](x, self.weight, y, x.stride(0), N, self.eps, BLOCK=triton.next_power_of_2(N))
        return y
