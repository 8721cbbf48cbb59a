# Causal depthwise conv over a channels-last sequence, as used in the
# Mamba / Hyena short-conv front end.  Input is [B, L, D] (no transpose
# needed after the in-projection), weights are stored tap-major [K, D] so a
# single vector load fetches one tap for a whole channel slab.
import torch
import triton
import triton.language as tl


@triton.jit
def _causal_dwconv_cl(X, Wt, Bias, Y, L, D,
                      K: tl.constexpr, TT: tl.constexpr, TD: tl.constexpr):
    b = tl.program_id(2)
    t = tl.program_id(0) * TT + tl.arange(0, TT)
    d = tl.program_id(1) * TD + tl.arange(0, TD)
    dm = d < D
    base = X + b * L * D

    out = tl.load(Bias + d, mask=dm, other=0.0).to(tl.float32)[None, :] + \
        tl.zeros([TT, TD], dtype=tl.float32)
    # y[t] = sum_j w[j] * x[t - (K - 1) + j]
    for j in tl.static_range(K):
        src_t = t - (K - 1 - j)
        ok = (src_t >= 0)[:, None] & (src_t < L)[:, None] & dm[None, :]
        xs = tl.load(base + src_t[:, None] * D + d[None, :], mask=ok, other=0.0)
        wj = tl.load(Wt + j * D + d, mask=dm, other=0.0)
        out += xs.to(tl.float32) * wj.to(tl.float32)[None, :]

    om = (t < L)[:, None] & dm[None, :]
    tl.store(Y + b * L * D + t[:, None] * D + d[None, :], out.to(Y.dtype.element_ty), mask=om)


class CausalShortConv(torch.nn.Module):
    def __init__(self, dim, k=4):
        super().__init__()
        self.k = k
        self.w = torch.nn.Parameter(torch.randn(k, dim) / k)     # tap-major
        self.b = torch.nn.Parameter(torch.zeros(dim))

    def forward(self, x):
        B, L, D = x.shape
        x = x.contiguous()
        y = torch.empty_like(x)
        TT, TD = 32, 64
        grid = (triton.cdiv(L, TT), triton.cdiv(D, TD), B)
        _causal_dwconv_cl[grid](x, self.w, self.b, y, L, D, K=self.k, TT=TT, TD=TD, num_warps=4)
        return y
