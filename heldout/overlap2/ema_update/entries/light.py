import torch
import triton
import triton.language as tl


@triton.jit
def _ema(avg_ptr, w_ptr, numel, d, BLOCK_SIZE: tl.constexpr):
    i = tl.program_id(0) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    ok = i < numel
    a = tl.load(avg_ptr + i, mask=ok).to(tl.float32)
    w = tl.load(w_ptr + i, mask=ok).to(tl.float32)
    a = a - (1.0 - d) * (a - w)  # lerp towards the live weights
    tl.store(avg_ptr + i, a, mask=ok)


class WeightAverager:
    """Keeps an exponential moving average of a flat parameter buffer."""

    def __init__(self, params: torch.Tensor, decay: float = 0.9999):
        self.avg = params.detach().clone().float()
        self.decay = decay
        self.t = 0

    @torch.no_grad()
    def update(self, params: torch.Tensor):
        d = min(self.decay, (1 + self.t) / (10 + self.t))
        numel = self.avg.numel()
        _ema[(triton.cdiv(numel, 4096),)](self.avg, params, numel, d, BLOCK_SIZE=4096, num_warps=8)
        self.t += 1
        return self.avg
