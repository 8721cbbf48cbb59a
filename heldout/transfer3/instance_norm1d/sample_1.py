import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def instance_norm_kernel(
    x_ptr, out_ptr,
    L,
    eps,
    BLOCK_L: tl.constexpr,
):
    # program id -> one (batch, channel) pair
    pid = tl.program_id(0)
    offs = tl.arange(0, BLOCK_L)
    mask = offs < L
    x = tl.load(x_ptr + pid * L + offs, mask=mask, other=0.0)

    mean = tl.sum(x, axis=0) / L
    centered = tl.where(mask, x - mean, 0.0)
    var = tl.sum(centered * centered, axis=0) / L
    std = tl.sqrt(var)

    y = centered / (std + eps)
    tl.store(out_ptr + pid * L + offs, y, mask=mask)


class ModelNew(nn.Module):
    def __init__(self, eps: float = 1e-5):
        super().__init__()
        self.eps = eps

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x.contiguous()
        B, C, L = x.shape
        out = torch.empty_like(x)
        BLOCK_L = triton.next_power_of_2(L)
        grid = (B * C,)
        instance_norm_kernel[grid](x, out, L, self.eps, BLOCK_L=BLOCK_L, num_warps=4)
        return out
