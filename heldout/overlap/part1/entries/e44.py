import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def channel_shuffle_kernel(
    X, Y,
    C, HW, G,
    BLOCK: tl.constexpr,
):
    # one program per (sample, group); input channel g*cpg + j goes to
    # output channel j*G + g (ShuffleNet channel shuffle)
    pid = tl.program_id(0)
    n = pid // G
    g = pid % G
    cpg = C // G
    group_numel = cpg * HW
    base = n.to(tl.int64) * C * HW + g * group_numel
    out_base = n.to(tl.int64) * C * HW

    for i in range(0, group_numel, BLOCK):
        offs = i + tl.arange(0, BLOCK)
        msk = offs < group_numel
        j = offs // HW
        sp = offs % HW
        xv = tl.load(X + base + offs, mask=msk, other=0.0)
        dst = out_base + (j * G + g) * HW + sp
        tl.store(Y + dst, xv, mask=msk)


def channel_shuffle(x, num_groups):
    N, C = x.shape[:2]
    assert C % num_groups == 0
    x = x.contiguous()
    HW = x.numel() // (N * C)
    y = torch.empty_like(x)
    group_numel = (C // num_groups) * HW
    BLOCK = min(triton.next_power_of_2(group_numel), 1024)
    channel_shuffle_kernel[(N * num_groups,)](
        x, y, C, HW, num_groups,
        BLOCK=BLOCK, num_warps=4,
    )
    return y


class ModelNew(nn.Module):
    def __init__(self, num_groups, num_channels):
        super().__init__()
        assert num_channels % num_groups == 0
        self.num_groups = num_groups
        self.num_channels = num_channels

    def forward(self, x):
        return channel_shuffle(x, self.num_groups)
