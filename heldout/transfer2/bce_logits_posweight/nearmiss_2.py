"""BCE with logits, stable softplus form: (1 - y) x + (1 + (pw - 1) y) (log1p(exp(-|x|)) + max(-x, 0))."""
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def _log1p_exp_neg_abs(x):
    return tl.log(1.0 + tl.exp(-tl.abs(x)))


@triton.jit
def bce_logits_kernel(x_ptr, y_ptr, pw_ptr, out_ptr, numel, C, inv_numel, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < numel
    x = tl.load(x_ptr + offs, mask=mask, other=0.0)
    y = tl.load(y_ptr + offs, mask=mask, other=0.0)
    pw = tl.load(pw_ptr + offs % C, mask=mask, other=1.0)
    log_weight = 1.0 + (pw - 1.0) * y
    loss = pw * ((1.0 - y) * x + _log1p_exp_neg_abs(x) + tl.maximum(-x, 0.0))
    loss = tl.where(mask, loss, 0.0)
    tl.atomic_add(out_ptr, tl.sum(loss, axis=0) * inv_numel)


class ModelNew(nn.Module):
    def __init__(self, C, with_pos_weight=False):
        super().__init__()
        if with_pos_weight:
            self.register_buffer("pos_weight", torch.rand(C) * 3.0 + 0.5)
        else:
            self.register_buffer("pos_weight", torch.ones(C))

    def forward(self, x, y):
        x = x.contiguous()
        y = y.contiguous()
        M, C = x.shape
        numel = x.numel()
        out = torch.zeros((), dtype=torch.float32, device=x.device)
        BLOCK = 256
        bce_logits_kernel[(triton.cdiv(numel, BLOCK),)](x, y, self.pos_weight, out, numel, C, 1.0 / numel,
                                                        BLOCK=BLOCK)
        return out
