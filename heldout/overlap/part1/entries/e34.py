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
    pid = tl.program_id(0)
    g = pid % G
    n = pid // G
    cpg = C // G
    group_numel = cpg * HW
    x_base = X + n.to(tl.int64) * C * HW + g * group_numel
    y_base = Y + n.to(tl.int64) * C * HW + g * group_numel
    inv_cnt = 1.0 / group_numel

    # single sweep: sum and sum of squares together
    s1 = tl.zeros([BLOCK], dtype=tl.float32)
    s2 = tl.zeros([BLOCK], dtype=tl.float32)
    for i in range(0, group_numel, BLOCK):
        offs = i + tl.arange(0, BLOCK)
        xv = tl.load(x_base + offs, mask=offs < group_numel, other=0.0).to(tl.float32)
        s1 += xv
        s2 += xv * xv
    mean = tl.sum(s1, axis=0) * inv_cnt
    var = tl.maximum(tl.sum(s2, axis=0) * inv_cnt - mean * mean, 0.0)
    rstd = tl.math.rsqrt(var + eps)

    # y = x * a[c] + b'[c] with a = w * rstd, b' = b - mean * a
    for i in range(0, group_numel, BLOCK):
        offs = i + tl.arange(0, BLOCK)
        msk = offs < group_numel
        ch = g * cpg + offs // HW
        a = tl.load(W + ch, mask=msk, other=1.0).to(tl.float32) * rstd
        shift = tl.load(B + ch, mask=msk, other=0.0).to(tl.float32) - mean * a
        xv = tl.load(x_base + offs, mask=msk, other=0.0).to(tl.float32)
        tl.store(y_base + offs, (xv * a + shift).to(Y.dtype.element_ty), mask=msk)


def group_norm(x, num_groups, weight, bias, eps=1e-5):
    N, C = x.shape[:2]
    assert C % num_groups == 0
    x = x.contiguous()
    HW = x.numel() // (N * C)
    y = torch.empty_like(x)
    BLOCK = min(triton.next_power_of_2((C // num_groups) * HW), 1024)
    groupnorm_fwd_kernel[(N * num_groups,)](
        x, y, weight, bias, C, HW, num_groups, eps, BLOCK=BLOCK, num_warps=4,
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
