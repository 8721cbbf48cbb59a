"""Inference batchnorm: a flat 1-D launch, per-channel statistics gathered by channel index."""
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def batchnorm_kernel(x_ptr, mean_ptr, var_ptr, w_ptr, b_ptr, out_ptr, n_elements, C, HW, eps,
                     BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n_elements
    channel = (offs // HW) % C
    x = tl.load(x_ptr + offs, mask=mask)
    mean = tl.load(mean_ptr + channel, mask=mask)
    var = tl.load(var_ptr + channel, mask=mask, other=1.0)
    w = tl.load(w_ptr + channel, mask=mask)
    b = tl.load(b_ptr + channel, mask=mask)
    y = (x - mean) / tl.sqrt(var + eps) * w + b
    tl.store(out_ptr + offs, y, mask=mask)


class ModelNew(nn.Module):
    def __init__(self, C, eps=1e-5):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.randn(C))
        self.bias = nn.Parameter(torch.randn(C))
        self.register_buffer("running_mean", torch.randn(C))
        self.register_buffer("running_var", torch.rand(C) + 0.5)

    def forward(self, x):
        x = x.contiguous()
        _, C, H, W = x.shape
        out = torch.empty_like(x)
        n = x.numel()
        BLOCK = 1024
        batchnorm_kernel[(triton.cdiv(n, BLOCK),)](x, self.running_mean, self.running_var, self.weight, self.bias,
                                                   out, n, C, H * W, self.eps, BLOCK=BLOCK)
        return out
