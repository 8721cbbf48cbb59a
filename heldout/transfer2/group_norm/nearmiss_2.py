"""GroupNorm: one program per (sample, group); the group is a contiguous span of C/G * H * W values."""
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def group_norm_fwd(x_ptr, w_ptr, b_ptr, y_ptr, C, HW, G, eps, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    g = pid % G
    cpg = C // G
    group_size = cpg * HW
    base = pid * group_size
    offs = tl.arange(0, BLOCK)

    total = tl.zeros([BLOCK], dtype=tl.float32)
    for start in range(0, group_size, BLOCK):
        idx = start + offs
        total += tl.load(x_ptr + base + idx, mask=idx < group_size, other=0.0)
    mean = tl.sum(total, axis=0) / group_size

    sq = tl.zeros([BLOCK], dtype=tl.float32)
    for start in range(0, group_size, BLOCK):
        idx = start + offs
        v = tl.load(x_ptr + base + idx, mask=idx < group_size, other=0.0)
        d = tl.where(idx < group_size, v - mean, 0.0)
        sq += d * d
    var = tl.sum(sq, axis=0) / group_size
    rstd = 1.0 / tl.sqrt(var + eps)

    for start in range(0, group_size, BLOCK):
        idx = start + offs
        m = idx < group_size
        v = tl.load(x_ptr + base + idx, mask=m, other=0.0)
        ch = idx // HW
        w = tl.load(w_ptr + ch, mask=m, other=0.0)
        b = tl.load(b_ptr + ch, mask=m, other=0.0)
        tl.store(y_ptr + base + idx, (v - mean) * rstd * w + b, mask=m)


class ModelNew(nn.Module):
    def __init__(self, G, C, eps=1e-5):
        super().__init__()
        self.G = G
        self.eps = eps
        self.weight = nn.Parameter(torch.randn(C))
        self.bias = nn.Parameter(torch.randn(C))

    def forward(self, x):
        x = x.contiguous()
        B, C, H, W = x.shape
        y = torch.empty_like(x)
        group_norm_fwd[(B * self.G,)](x, self.weight, self.bias, y, C, H * W, self.G, self.eps, BLOCK=256)
        return y
