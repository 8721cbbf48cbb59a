import torch
from torch import nn
import triton
import triton.language as tl


@triton.jit
def layernorm_fwd(inp, outp, gamma, beta, mu_out, inv_out, row_pitch, width, epsilon, TILE: tl.constexpr):
    i = tl.program_id(0)
    inp += i * row_pitch
    outp += i * row_pitch
    sum_v = tl.zeros([TILE], dtype=tl.float32)
    sum_sq = tl.zeros([TILE], dtype=tl.float32)
    for k in range(0, width, TILE):
        idx = k + tl.arange(0, TILE)
        a = tl.load(inp + idx, mask=idx < width, other=0.0).to(tl.float32)
        sum_v += a
        sum_sq += a * a
    mean = tl.sum(sum_v, axis=0) / width
    variance = tl.sum(sum_sq, axis=0) / width - mean * mean
    inv = 1 / tl.sqrt(variance + epsilon)
    tl.store(mu_out + i, mean)
    tl.store(inv_out + i, inv)
    for k in range(0, width, TILE):
        idx = k + tl.arange(0, TILE)
        ok = idx < width
        a = tl.load(inp + idx, mask=ok, other=0.0).to(tl.float32)
        g = tl.load(gamma + idx, mask=ok)
        bt = tl.load(beta + idx, mask=ok)
        tl.store(outp + idx, ((a - mean) * inv * g + bt).to(outp.dtype.element_ty), mask=ok)


def fast_layernorm(inp, gamma, beta, epsilon=1e-6):
    orig = inp.shape
    flat = inp.reshape(-1, orig[-1]).contiguous()
    n, width = flat.shape
    outp = torch.empty_like(flat)
    mu = torch.empty(n, device=inp.device, dtype=torch.float32)
    inv = torch.empty(n, device=inp.device, dtype=torch.float32)
    TILE = min(8192, triton.next_power_of_2(width))
    warps = 2 if TILE <= 512 else (4 if TILE <= 2048 else 8)
    layernorm_fwd[(n,)](flat, outp, gamma, beta, mu, inv, flat.stride(0), width, epsilon,
                        TILE=TILE, num_warps=warps)
    return outp.reshape(orig), mu, inv


class FastLayerNorm(nn.Module):
    def __init__(self, dim, epsilon=1e-6):
        super().__init__()
        self.gamma = nn.Parameter(torch.ones(dim))
        self.beta = nn.Parameter(torch.zeros(dim))
        self.epsilon = epsilon

    def forward(self, inp):
        return fast_layernorm(inp, self.gamma, self.beta, self.epsilon)[0]
