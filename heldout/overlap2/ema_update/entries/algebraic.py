"""EMA of weights written as the usual convex combination decay * s + (1 - decay) * p (the lerp form expanded),
with the warm-up decay computed on the device from the step counter; also returns the debiased average."""
import torch
import triton
import triton.language as tl


@triton.jit
def ema_debias_kernel(shadow_ptr, param_ptr, out_ptr, n, step, decay, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    d = tl.minimum(decay, (1.0 + step) / (10.0 + step))
    s = tl.load(shadow_ptr + offs, mask=mask).to(tl.float32)
    p = tl.load(param_ptr + offs, mask=mask).to(tl.float32)
    s = d * s + (1.0 - d) * p
    tl.store(shadow_ptr + offs, s, mask=mask)
    tl.store(out_ptr + offs, s / (1.0 - tl.exp(tl.log(d) * (step + 1.0))), mask=mask)


class EMA:
    def __init__(self, flat_params: torch.Tensor, decay: float = 0.9999):
        self.shadow = flat_params.detach().clone().float()
        self.decay = decay
        self.step = 0

    @torch.no_grad()
    def update(self, flat_params: torch.Tensor):
        n = self.shadow.numel()
        out = torch.empty_like(self.shadow)
        ema_debias_kernel[(triton.cdiv(n, 4096),)](self.shadow, flat_params, out, n, float(self.step), self.decay,
                                                   BLOCK=4096)
        self.step += 1
        return out
