import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def ce_fwd_kernel(logits_ptr, target_ptr, loss_ptr, n_classes, logits_stride, BLOCK_C: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK_C)
    valid = offs < n_classes
    z = tl.load(logits_ptr + row * logits_stride + offs, mask=valid).to(tl.float32)
    z_max = tl.max(z, axis=0)
    lse = z_max + tl.log(tl.sum(tl.exp(z - z_max), axis=0))
    t = tl.load(target_ptr + row)
    z_t = tl.load(logits_ptr + row * logits_stride + t).to(tl.float32)
    tl.store(loss_ptr + row, lse - z_t)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, logits, target):
        logits = logits.contiguous()
        M, C = logits.shape
        loss = torch.empty(M, device=logits.device, dtype=torch.float32)
        ce_fwd_kernel[(M,)](logits, target, loss, C, logits.stride(0), BLOCK_C=triton.next_power_of_2(C))
        return loss
