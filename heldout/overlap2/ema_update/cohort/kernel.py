"""In-place exponential moving average of a model's weights (EMA teacher / SWA-style), with a warm-up decay:
decay_t = min(decay, (1 + t) / (10 + t)); shadow = decay_t * shadow + (1 - decay_t) * param; one flat buffer."""
import torch
import triton
import triton.language as tl


@triton.jit
def ema_update_kernel(shadow_ptr, param_ptr, n, decay_t, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    s = tl.load(shadow_ptr + offs, mask=mask).to(tl.float32)
    p = tl.load(param_ptr + offs, mask=mask).to(tl.float32)
    s = s - (1.0 - decay_t) * (s - p)
    tl.store(shadow_ptr + offs, s, mask=mask)


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
