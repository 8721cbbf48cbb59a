"""Bias + GELU(tanh) using the identity 0.5 * (1 + tanh(u)) = sigmoid(2u): y = h * sigmoid(2 * sqrt(2/pi) *
(h + 0.044715 h^3)), with h^3 factored as h * (1 + 0.044715 h^2). 1-D over the flattened tensor."""
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def bias_gelu_fwd(x_ptr, b_ptr, y_ptr, n, N, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    h = tl.load(x_ptr + offs, mask=m, other=0.0).to(tl.float32) + tl.load(b_ptr + offs % N, mask=m, other=0.0)
    u = 1.5957691216057308 * h * (1.0 + 0.044715 * h * h)
    tl.store(y_ptr + offs, h / (1.0 + tl.exp(-u)), mask=m)


class ModelNew(nn.Module):
    def __init__(self, features: int):
        super().__init__()
        self.bias = nn.Parameter(torch.zeros(features))

    def forward(self, x):
        x = x.contiguous()
        y = torch.empty_like(x)
        n = x.numel()
        bias_gelu_fwd[(triton.cdiv(n, 1024),)](x, self.bias, y, n, x.shape[-1], BLOCK=1024)
        return y
