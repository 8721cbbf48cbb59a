"""Training-mode batch norm: one program per channel loops over the batch and the length in chunks (strided input)."""
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def bn_train_kernel(x_ptr, w_ptr, b_ptr, y_ptr, B, L, sxb, sxc, sxl, syb, syc, eps, BLOCK_L: tl.constexpr):
    c = tl.program_id(0)
    offs = tl.arange(0, BLOCK_L)
    count = B * L
    acc = tl.zeros([BLOCK_L], tl.float32)
    for b in range(0, B):
        for l0 in range(0, L, BLOCK_L):
            l = l0 + offs
            acc += tl.load(x_ptr + b * sxb + c * sxc + l * sxl, mask=l < L, other=0.0)
    mean = tl.sum(acc, axis=0) / count
    acc2 = tl.zeros([BLOCK_L], tl.float32)
    for b in range(0, B):
        for l0 in range(0, L, BLOCK_L):
            l = l0 + offs
            v = tl.load(x_ptr + b * sxb + c * sxc + l * sxl, mask=l < L, other=0.0)
            diff = tl.where(l < L, v - mean, 0.0)
            acc2 += diff * diff
    var = tl.sum(acc2, axis=0) / count
    scale = tl.load(w_ptr + c) / tl.sqrt(var + eps)
    shift = tl.load(b_ptr + c) - mean * scale
    for b in range(0, B):
        for l0 in range(0, L, BLOCK_L):
            l = l0 + offs
            v = tl.load(x_ptr + b * sxb + c * sxc + l * sxl, mask=l < L, other=0.0)
            tl.store(y_ptr + b * syb + c * syc + l, v * scale + shift, mask=l < L)


class ModelNew(nn.Module):
    def __init__(self, C, eps=1e-5):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.randn(C))
        self.bias = nn.Parameter(torch.randn(C))

    def forward(self, x):
        B, C, L = x.shape
        y = torch.empty((B, C, L), dtype=x.dtype, device=x.device)
        bn_train_kernel[(C,)](x, self.weight, self.bias, y, B, L, x.stride(0), x.stride(1), x.stride(2),
                              y.stride(0), y.stride(1), 1e-5, BLOCK_L=64)
        return y
