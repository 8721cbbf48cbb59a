"""GroupNorm (+ optional SiLU) over NCHW, the usual UNet "norm -> act" pair."""
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def gn_act_kernel(
    X, Y, W, B,
    C, HW, G, eps,
    APPLY_SILU: tl.constexpr,
    BLOCK_C: tl.constexpr, BLOCK_HW: tl.constexpr,
):
    # tile the group as [channels-in-group, spatial] instead of a flat range,
    # so the per-channel affine is loaded once per channel row
    pid = tl.program_id(0)
    n = pid // G
    g = pid % G
    cpg = C // G
    ch = tl.arange(0, BLOCK_C)
    cmask = ch < cpg
    base = n.to(tl.int64) * C * HW + (g * cpg) * HW
    inv_cnt = 1.0 / (cpg * HW)

    acc = tl.zeros([BLOCK_C, BLOCK_HW], dtype=tl.float32)
    for s0 in range(0, HW, BLOCK_HW):
        sp = s0 + tl.arange(0, BLOCK_HW)
        m = cmask[:, None] & (sp < HW)[None, :]
        acc += tl.load(X + base + ch[:, None] * HW + sp[None, :], mask=m, other=0.0).to(tl.float32)
    mean = tl.sum(tl.sum(acc, axis=1), axis=0) * inv_cnt

    acc = tl.zeros([BLOCK_C, BLOCK_HW], dtype=tl.float32)
    for s0 in range(0, HW, BLOCK_HW):
        sp = s0 + tl.arange(0, BLOCK_HW)
        m = cmask[:, None] & (sp < HW)[None, :]
        xv = tl.load(X + base + ch[:, None] * HW + sp[None, :], mask=m, other=0.0).to(tl.float32)
        d = tl.where(m, xv - mean, 0.0)
        acc += d * d
    rstd = 1.0 / tl.sqrt(tl.sum(tl.sum(acc, axis=1), axis=0) * inv_cnt + eps)

    w = tl.load(W + g * cpg + ch, mask=cmask, other=1.0).to(tl.float32)
    b = tl.load(B + g * cpg + ch, mask=cmask, other=0.0).to(tl.float32)
    for s0 in range(0, HW, BLOCK_HW):
        sp = s0 + tl.arange(0, BLOCK_HW)
        m = cmask[:, None] & (sp < HW)[None, :]
        offs = base + ch[:, None] * HW + sp[None, :]
        xv = tl.load(X + offs, mask=m, other=0.0).to(tl.float32)
        y = (xv - mean) * rstd * w[:, None] + b[:, None]
        if APPLY_SILU:
            y = y * tl.sigmoid(y)
        tl.store(Y + offs, y.to(Y.dtype.element_ty), mask=m)


def group_norm_act(x, num_groups, weight, bias, eps=1e-5, silu=False):
    N, C = x.shape[:2]
    assert C % num_groups == 0
    x = x.contiguous()
    HW = x.numel() // (N * C)
    y = torch.empty_like(x)
    cpg = C // num_groups
    BLOCK_C = triton.next_power_of_2(cpg)
    BLOCK_HW = max(16, min(triton.next_power_of_2(HW), 2048 // BLOCK_C))
    gn_act_kernel[(N * num_groups,)](
        x, y, weight, bias, C, HW, num_groups, eps,
        APPLY_SILU=silu, BLOCK_C=BLOCK_C, BLOCK_HW=BLOCK_HW, num_warps=4,
    )
    return y


class ModelNew(nn.Module):
    def __init__(self, num_groups, num_channels, eps=1e-5, silu=False):
        super().__init__()
        self.num_groups, self.eps, self.silu = num_groups, eps, silu
        self.weight = nn.Parameter(torch.ones(num_channels))
        self.bias = nn.Parameter(torch.zeros(num_channels))

    def forward(self, x):
        return group_norm_act(x, self.num_groups, self.weight, self.bias, self.eps, self.silu)
