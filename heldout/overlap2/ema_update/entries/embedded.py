"""Training utilities: gradient-norm clipping over a flat gradient buffer, and the EMA of the weights."""
import torch
import triton
import triton.language as tl


@triton.jit
def sq_norm_kernel(g_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    g = tl.load(g_ptr + offs, mask=offs < n, other=0.0).to(tl.float32)
    tl.atomic_add(out_ptr, tl.sum(g * g, axis=0))


@triton.jit
def scale_kernel(g_ptr, n, factor, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    tl.store(g_ptr + offs, tl.load(g_ptr + offs, mask=m) * factor, mask=m)


@triton.jit
def ema_update_kernel(shadow_ptr, param_ptr, n, decay_t, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    s = tl.load(shadow_ptr + offs, mask=mask).to(tl.float32)
    p = tl.load(param_ptr + offs, mask=mask).to(tl.float32)
    s = s - (1.0 - decay_t) * (s - p)
    tl.store(shadow_ptr + offs, s, mask=mask)


def clip_grad_norm_(flat_grad: torch.Tensor, max_norm: float) -> float:
    n = flat_grad.numel()
    acc = torch.zeros(1, device=flat_grad.device)
    sq_norm_kernel[(triton.cdiv(n, 4096),)](flat_grad, acc, n, BLOCK=4096)
    norm = acc.sqrt().item()
    if norm > max_norm:
        scale_kernel[(triton.cdiv(n, 4096),)](flat_grad, n, max_norm / (norm + 1e-6), BLOCK=4096)
    return norm


class EMA:
    def __init__(self, flat_params: torch.Tensor, decay: float = 0.9999):
        self.shadow = flat_params.detach().clone().float()
        self.decay = decay
        self.step = 0

    @torch.no_grad()
    def update(self, flat_params: torch.Tensor):
        d = min(self.decay, (1 + self.step) / (10 + self.step))
        n = self.shadow.numel()
        ema_update_kernel[(triton.cdiv(n, 4096),)](self.shadow, flat_params, n, d, BLOCK=4096, num_warps=8)
        self.step += 1
        return self.shadow
