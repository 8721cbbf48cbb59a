"""Cross-entropy loss per row: logsumexp(logits) - logits[target], one program per row."""
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def cross_entropy_fwd_kernel(logits_ptr, target_ptr, loss_ptr, n_classes, logits_stride,
                             BLOCK_C: tl.constexpr):
    row = tl.program_id(0)
    base = logits_ptr + row * logits_stride
    tgt = tl.load(target_ptr + row)
    m = float("-inf")
    s = 0.0
    for c0 in range(0, n_classes, BLOCK_C):
        offs = c0 + tl.arange(0, BLOCK_C)
        z = tl.load(base + offs, mask=offs < n_classes, other=float("-inf")).to(tl.float32)
        m_new = tl.maximum(m, tl.max(z, axis=0))
        s = s * tl.exp(m - m_new) + tl.sum(tl.exp(z - m_new), axis=0)
        m = m_new
    lse = m + tl.log(s)
    z_t = tl.load(base + tgt).to(tl.float32)
    tl.store(loss_ptr + row, lse - z_t)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, logits, target):
        logits = logits.contiguous()
        B, C = logits.shape
        loss = torch.empty(B, device=logits.device, dtype=torch.float32)
        cross_entropy_fwd_kernel[(B,)](logits, target, loss, C, logits.stride(0), BLOCK_C=256)
        return loss.mean()
