"""Cross-entropy, mean over rows: one program per row with an online (streaming) logsumexp over class blocks;
each row adds loss / M into the scalar output atomically."""
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def cross_entropy_fwd_kernel(logits_ptr, target_ptr, loss_ptr, n_rows, n_classes, stride_row,
                             BLOCK_C: tl.constexpr):
    row = tl.program_id(0)
    base = logits_ptr + row * stride_row
    m = float("-inf")
    s = 0.0
    for c0 in range(0, n_classes, BLOCK_C):
        offs = c0 + tl.arange(0, BLOCK_C)
        x = tl.load(base + offs, mask=offs < n_classes, other=float("-inf")).to(tl.float32)
        m_new = tl.maximum(m, tl.max(x, axis=0))
        s = s * tl.exp(m - m_new) + tl.sum(tl.exp(x - m_new), axis=0)
        m = m_new
    tgt = tl.load(target_ptr + row)
    x_t = tl.load(base + tgt).to(tl.float32)
    loss = tl.log(s) + m - x_t
    tl.atomic_add(loss_ptr, loss / n_classes)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, logits, target):
        logits = logits.contiguous()
        n_rows, n_classes = logits.shape
        loss = torch.zeros((), device=logits.device, dtype=torch.float32)
        cross_entropy_fwd_kernel[(n_rows,)](logits, target, loss, n_rows, n_classes, logits.stride(0),
                                            BLOCK_C=128)
        return loss
