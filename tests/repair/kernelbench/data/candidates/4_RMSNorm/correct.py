"""RMSNorm over the features of (B, F, H, W): a program per (batch, block of pixels) loads every feature of its pixels
as one tile."""
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def rms_norm_kernel(x_ptr, out_ptr, F, HW, eps, BLOCK_F: tl.constexpr, BLOCK_HW: tl.constexpr):
    b = tl.program_id(0)
    hw = tl.program_id(1) * BLOCK_HW + tl.arange(0, BLOCK_HW)
    f = tl.arange(0, BLOCK_F)
    mask = (f[:, None] < F) & (hw[None, :] < HW)
    offs = b * F * HW + f[:, None] * HW + hw[None, :]
    x = tl.load(x_ptr + offs, mask=mask, other=0.0)
    ms = tl.sum(x * x, axis=0) / F
    rms = tl.sqrt(ms + eps)
    tl.store(out_ptr + offs, x / rms[None, :], mask=mask)


class ModelNew(nn.Module):
    def __init__(self, num_features: int, eps: float = 1e-5):
        super(ModelNew, self).__init__()
        self.num_features = num_features
        self.eps = eps

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x.contiguous()
        B, F = x.shape[0], x.shape[1]
        HW = x.numel() // (B * F)
        out = torch.empty_like(x)
        BLOCK_F = triton.next_power_of_2(F)
        BLOCK_HW = max(16, min(256, 8192 // BLOCK_F))
        grid = (B, triton.cdiv(HW, BLOCK_HW))
        rms_norm_kernel[grid](x, out, F, HW, self.eps, BLOCK_F=BLOCK_F, BLOCK_HW=BLOCK_HW)
        return out
