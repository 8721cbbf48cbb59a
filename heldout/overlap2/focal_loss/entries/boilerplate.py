"""Mean absolute error with mean reduction, the same flat launch and atomic accumulation of block sums as the loss
kernels of this file."""
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def l1_mean_kernel(logit_ptr, target_ptr, out_ptr, n, inv_n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(logit_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    t = tl.load(target_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    loss = tl.where(mask, tl.abs(x - t), 0.0)
    tl.atomic_add(out_ptr, tl.sum(loss, axis=0) * inv_n)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, logits, targets):
        x, t = logits.contiguous().view(-1), targets.contiguous().view(-1)
        n = x.numel()
        out = torch.zeros(1, device=x.device, dtype=torch.float32)
        l1_mean_kernel[(triton.cdiv(n, 1024),)](x, t, out, n, 1.0 / n, BLOCK=1024)
        return out[0]
