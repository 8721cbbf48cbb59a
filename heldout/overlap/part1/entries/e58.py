"""Fused AdamW step over a flat fp32 parameter buffer (with optional bf16 copy)."""
import math

import torch
import triton
import triton.language as tl


@triton.jit
def adamw_step_kernel(
    p_ptr, g_ptr, m_ptr, v_ptr, p16_ptr,
    n, lr, beta1, beta2, eps, weight_decay,
    bias_c1, bias_c2, grad_scale,
    WRITE_BF16: tl.constexpr,
    BLOCK: tl.constexpr,
):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    p = tl.load(p_ptr + offs, mask=mask)
    g = tl.load(g_ptr + offs, mask=mask).to(tl.float32) * grad_scale
    m = tl.load(m_ptr + offs, mask=mask)
    v = tl.load(v_ptr + offs, mask=mask)

    m = beta1 * m + (1.0 - beta1) * g
    v = beta2 * v + (1.0 - beta2) * g * g
    m_hat = m / bias_c1
    v_hat = v / bias_c2
    p = p * (1.0 - lr * weight_decay)
    p = p - lr * m_hat / (tl.sqrt(v_hat) + eps)

    tl.store(p_ptr + offs, p, mask=mask)
    tl.store(m_ptr + offs, m, mask=mask)
    tl.store(v_ptr + offs, v, mask=mask)
    if WRITE_BF16:
        tl.store(p16_ptr + offs, p.to(tl.bfloat16), mask=mask)


class FlatAdamW:
    def __init__(self, flat_params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0.01):
        assert flat_params.dtype == torch.float32 and flat_params.is_contiguous()
        self.p = flat_params
        self.m = torch.zeros_like(flat_params)
        self.v = torch.zeros_like(flat_params)
        self.lr, self.betas, self.eps, self.wd = lr, betas, eps, weight_decay
        self.t = 0

    @torch.no_grad()
    def step(self, flat_grad, bf16_copy=None, grad_scale=1.0):
        self.t += 1
        b1, b2 = self.betas
        n = self.p.numel()
        BLOCK = 2048
        adamw_step_kernel[(triton.cdiv(n, BLOCK),)](
            self.p, flat_grad, self.m, self.v, bf16_copy if bf16_copy is not None else self.p,
            n, self.lr, b1, b2, self.eps, self.wd,
            1.0 - b1 ** self.t, 1.0 - b2 ** self.t, grad_scale,
            WRITE_BF16=bf16_copy is not None, BLOCK=BLOCK, num_warps=8,
        )

    def lr_cosine(self, step, total, warmup, peak):
        if step < warmup:
            self.lr = peak * step / max(1, warmup)
        else:
            prog = (step - warmup) / max(1, total - warmup)
            self.lr = 0.5 * peak * (1.0 + math.cos(math.pi * prog))
