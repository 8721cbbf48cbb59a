"""Leaky ReLU written as max(x, 0) + slope * min(x, 0)."""
import triton
import triton.language as tl


@triton.jit
def lrelu_kernel(src, dst, total, alpha, B: tl.constexpr):
    o = tl.program_id(0) * B + tl.arange(0, B)
    inb = o < total
    v = tl.load(src + o, mask=inb, other=0.0)
    tl.store(dst + o, tl.maximum(v, 0.0) + alpha * tl.minimum(v, 0.0), mask=inb)
