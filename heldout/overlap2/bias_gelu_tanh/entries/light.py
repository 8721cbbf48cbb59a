import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def stable_tanh(u):
    q = tl.exp(-2.0 * tl.abs(u))
    r = (1.0 - q) / (1.0 + q)
    return tl.where(u >= 0, r, -r)


@triton.jit
def fused_bias_gelu(inp, bias, out, rows, cols, ld, TM: tl.constexpr, TN: tl.constexpr):
    i = tl.program_id(0) * TM + tl.arange(0, TM)
    j = tl.program_id(1) * TN + tl.arange(0, TN)
    msk = (i[:, None] < rows) & (j[None, :] < cols)
    a = tl.load(inp + i[:, None] * ld + j[None, :], mask=msk, other=0.0).to(tl.float32)
    c = tl.load(bias + j, mask=j < cols, other=0.0).to(tl.float32)
    v = a + c[None, :]
    k = 0.7978845608028654 * (v + 0.044715 * v * v * v)
    res = 0.5 * v * (1.0 + stable_tanh(k))
    tl.store(out + i[:, None] * ld + j[None, :], res, mask=msk)


class ModelNew(nn.Module):
    def __init__(self, features: int):
        super().__init__()
        self.bias = nn.Parameter(torch.zeros(features))

    def forward(self, x):
        flat = x.reshape(-1, x.shape[-1]).contiguous()
        rows, cols = flat.shape
        out = torch.empty_like(flat)
        fused_bias_gelu[(triton.cdiv(rows, 32), triton.cdiv(cols, 64))](flat, self.bias, out, rows, cols,
                                                                         flat.stride(0), TM=32, TN=64)
        return out.reshape(x.shape)
