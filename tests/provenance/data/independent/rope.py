"""Rotary position embedding applied to q in place: pairs (x0, x1) rotated by (cos, sin) of the position."""
import triton
import triton.language as tl


@triton.jit
def rope_kernel(q_ptr, cos_ptr, sin_ptr, seq_len, head_dim, stride_tok, stride_head,
                HALF: tl.constexpr):
    tok = tl.program_id(0)
    head = tl.program_id(1)
    pos = tok % seq_len
    d = tl.arange(0, HALF)
    base = q_ptr + tok * stride_tok + head * stride_head
    x0 = tl.load(base + d)
    x1 = tl.load(base + HALF + d)
    c = tl.load(cos_ptr + pos * HALF + d)
    s = tl.load(sin_ptr + pos * HALF + d)
    tl.store(base + d, x0 * c - x1 * s)
    tl.store(base + HALF + d, x0 * s + x1 * c)
