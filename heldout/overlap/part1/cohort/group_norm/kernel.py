import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def groupnorm_fwd_kernel(
    X, Y, W, B,
    C, HW, G,
    eps,
    BLOCK: tl.constexpr,
):
    # one program per (sample, group); a group is a contiguous slab of
    # (C // G) * HW elements in NCHW layout
    pid = tl.program_id(0)
    n = pid // G
    g = pid % G
    cpg = C // G
    group_numel = cpg * HW
    base = n.to(tl.int64) * C * HW + g * group_numel

    # mean
    s = tl.zeros([BLOCK], dtype=tl.float32)
    for i in range(0, group_numel, BLOCK):
        offs = i + tl.arange(0, BLOCK)
        s += tl.load(X + base + offs, mask=offs < group_numel, other=0.0).to(tl.float32)
    mean = tl.sum(s, axis=0) / group_numel

    # variance around the mean (second read of the slab)
    v = tl.zeros([BLOCK], dtype=tl.float32)
    for i in range(0, group_numel, BLOCK):
        offs = i + tl.arange(0, BLOCK)
        msk = offs < group_numel
        xv = tl.load(X + base + offs, mask=msk, other=0.0).to(tl.float32)
        d = tl.where(msk, xv - mean, 0.0)
        v += d * d
    rstd = 1.0 / tl.sqrt(tl.sum(v, axis=0) / group_numel + eps)

    # normalize and apply the per-channel affine
    for i in range(0, group_numel, BLOCK):
        offs = i + tl.arange(0, BLOCK)
        msk = offs < group_numel
        ch = g * cpg + offs // HW
        xv = tl.load(X + base + offs, mask=msk, other=0.0).to(tl.float32)
        w = tl.load(W + ch, mask=msk, other=1.0).to(tl.float32)
        b = tl.load(B + ch, mask=msk, other=0.0).to(tl.float32)
        y = (xv - mean) * rstd * w + b
        tl.store(Y + base + offs, y.to(Y.dtype.element_ty), mask=msk)


def group_norm(x, num_groups, weight, bias, eps=1e-5):
    N, C = x.shape[:2]
    assert C % num_groups == 0
    x = x.contiguous()
    HW = x.numel() // (N * C)
    y = torch.empty_like(x)
    group_numel = (C // num_groups) * HW
    BLOCK = min(triton.next_power_of_2(group_numel), 1024)
    groupnorm_fwd_kernel[(N * num_groups,)](
        x, y, weight, bias, C, HW, num_groups, eps,
        BLOCK=BLOCK, num_warps=4,
    )
    return y


class ModelNew(nn.Module):
    def __init__(self, num_groups, num_channels, eps=1e-5):
        super().__init__()
        self.num_groups = num_groups
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(num_channels))
        self.bias = nn.Parameter(torch.zeros(num_channels))

    def forward(self, x):
        return group_norm(x, self.num_groups, self.weight, self.bias, self.eps)
