import torch
from torch import nn
import triton
import triton.language as tl


@triton.jit
def _rotary_neox(q, o, token_pos, cos_tab, sin_tab, nh, hd2,
                 q_st, q_sh, o_st, o_sh, tab_s,
                 HB: tl.constexpr, DB: tl.constexpr):
    t = tl.program_id(0)
    hh = tl.program_id(1) * HB + tl.arange(0, HB)
    dd = tl.arange(0, DB)
    dm = dd < hd2
    msk = (hh < nh)[:, None] & dm[None, :]
    pos = tl.load(token_pos + t)
    cs = tl.load(cos_tab + pos * tab_s + dd, mask=dm, other=1.0).to(tl.float32)[None, :]
    sn = tl.load(sin_tab + pos * tab_s + dd, mask=dm, other=0.0).to(tl.float32)[None, :]
    qp = q + t * q_st + hh[:, None] * q_sh + dd[None, :]
    lo = tl.load(qp, mask=msk, other=0.0).to(tl.float32)
    hi = tl.load(qp + hd2, mask=msk, other=0.0).to(tl.float32)
    op = o + t * o_st + hh[:, None] * o_sh + dd[None, :]
    tl.store(op, (lo * cs - hi * sn).to(o.dtype.element_ty), mask=msk)
    tl.store(op + hd2, (hi * cs + lo * sn).to(o.dtype.element_ty), mask=msk)


def rotary_tables(n_pos, head_dim, theta=500000.0, device="cuda"):
    freq = 1.0 / (theta ** (torch.arange(0, head_dim, 2, device=device, dtype=torch.float32) / head_dim))
    ang = torch.outer(torch.arange(n_pos, device=device, dtype=torch.float32), freq)
    return ang.cos().contiguous(), ang.sin().contiguous()


def rotary(q, token_pos, cos_tab, sin_tab):
    n_tok, nh, hd = q.shape
    if hd % 2:
        raise ValueError("head_dim must be even")
    q = q.contiguous()
    o = torch.empty_like(q)
    hd2 = hd // 2
    DB = triton.next_power_of_2(hd2)
    HB = max(1, min(32, 2048 // DB))
    _rotary_neox[(n_tok, triton.cdiv(nh, HB))](
        q, o, token_pos, cos_tab, sin_tab, nh, hd2,
        q.stride(0), q.stride(1), o.stride(0), o.stride(1), cos_tab.stride(0),
        HB=HB, DB=DB, num_warps=2)
    return o


class Rotary(nn.Module):
    def __init__(self, head_dim, n_pos=4096, theta=500000.0):
        super().__init__()
        c, s = rotary_tables(n_pos, head_dim, theta, device="cpu")
        self.register_buffer("cos_tab", c, persistent=False)
        self.register_buffer("sin_tab", s, persistent=False)

    def forward(self, q, token_pos):
        return rotary(q, token_pos, self.cos_tab, self.sin_tab)
