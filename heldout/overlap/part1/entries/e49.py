"""Seeded dropout that regenerates its mask in backward instead of storing it."""
import torch
import triton
import triton.language as tl


@triton.jit
def _dropout_kernel(x_ptr, y_ptr, n, p, seed, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m)
    r = tl.rand(seed, offs)
    keep = r > p
    y = tl.where(keep, x / (1 - p), 0.0)
    tl.store(y_ptr + offs, y, mask=m)


class SeededDropout(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, p, seed):
        x = x.contiguous()
        y = torch.empty_like(x)
        n = x.numel()
        _dropout_kernel[(triton.cdiv(n, 1024),)](x, y, n, p, seed, BLOCK=1024)
        ctx.p, ctx.seed = p, seed
        return y

    @staticmethod
    def backward(ctx, gy):
        gy = gy.contiguous()
        gx = torch.empty_like(gy)
        n = gy.numel()
        # same seed, same offsets -> same mask
        _dropout_kernel[(triton.cdiv(n, 1024),)](gy, gx, n, ctx.p, ctx.seed, BLOCK=1024)
        return gx, None, None


class Dropout(torch.nn.Module):
    def __init__(self, p=0.1):
        super().__init__()
        self.p = p
        self._step = 0

    def forward(self, x):
        if not self.training or self.p == 0.0:
            return x
        self._step += 1
        seed = (torch.initial_seed() + self._step) & 0x7FFFFFFF
        return SeededDropout.apply(x, self.p, seed)
