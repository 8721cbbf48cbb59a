"""KL divergence, batchmean: flat blocks of pointwise terms, each block atomically adds its share / B."""
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def kl_div_kernel(inp_ptr, tgt_ptr, out_ptr, numel, inv_batch, LOG_TARGET: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < numel
    x = tl.load(inp_ptr + offs, mask=mask, other=0.0)
    t = tl.load(tgt_ptr + offs, mask=mask, other=0.0)
    if LOG_TARGET:
        pointwise = tl.where(mask, tl.exp(t) * (t - x), 0.0)
    else:
        pointwise = tl.where(mask & (t > 0), t * (tl.log(t) - x), 0.0)
    tl.atomic_add(out_ptr, tl.sum(pointwise, axis=0) * inv_batch)


class ModelNew(nn.Module):
    def __init__(self, log_target=False):
        super().__init__()
        self.log_target = log_target

    def forward(self, inp, target):
        inp = inp.contiguous()
        target = target.contiguous()
        out = torch.zeros((), dtype=torch.float32, device=inp.device)
        numel = inp.numel()
        BLOCK = 256
        kl_div_kernel[(triton.cdiv(numel, BLOCK),)](inp, target, out, numel, 1.0 / inp.shape[0],
                                                    LOG_TARGET=self.log_target, BLOCK=BLOCK)
        return out
