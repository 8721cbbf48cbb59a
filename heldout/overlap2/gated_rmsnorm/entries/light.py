import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def _gated_norm(X, Z, W, Y, N, sx, sz, sy, eps, BLOCK_N: tl.constexpr):
    # one row per program; statistics in fp32
    r = tl.program_id(0)
    n = tl.arange(0, BLOCK_N)
    inb = n < N
    xv = tl.load(X + r * sx + n, mask=inb, other=0.0).to(tl.float32)
    zv = tl.load(Z + r * sz + n, mask=inb, other=0.0).to(tl.float32)
    wv = tl.load(W + n, mask=inb, other=0.0).to(tl.float32)
    mean_sq = tl.sum(xv * xv, axis=0) / N
    inv_rms = 1.0 / tl.sqrt(mean_sq + eps)
    silu_z = zv * tl.sigmoid(zv)
    out = xv * inv_rms * wv * silu_z
    tl.store(Y + r * sy + n, out.to(Y.dtype.element_ty), mask=inb)


class ModelNew(nn.Module):
    def __init__(self, hidden: int, eps: float = 1e-6):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(hidden))
        self.eps = eps

    def forward(self, x, z):
        d = x.shape[-1]
        xf = x.reshape(-1, d).contiguous()
        zf = z.reshape(-1, d).contiguous()
        y = torch.empty_like(xf)
        _gated_norm[(xf.shape[0],)](xf, zf, self.weight, y, d, xf.stride(0), zf.stride(0), y.stride(0), self.eps,
                                    BLOCK_N=triton.next_power_of_2(d), num_warps=4)
        return y.reshape(x.shape)
