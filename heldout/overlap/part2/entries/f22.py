# Rotary position embedding, GPT-J "interleaved" layout: pairs are
# (x[2i], x[2i+1]) rather than (x[i], x[i + d/2]).  Angles are computed in
# the kernel from the position ids, so no cos/sin cache is needed.
import torch
import triton
import triton.language as tl


@triton.jit
def _rope_interleaved(X, POS, Y, n_heads, head_dim, rot_dim, log_base,
                      sx_tok, sx_head, BLOCK_P: tl.constexpr):
    tok = tl.program_id(0)
    h = tl.program_id(1)
    p = tl.arange(0, BLOCK_P)                  # pair index
    in_rot = p < rot_dim // 2
    pos = tl.load(POS + tok).to(tl.float32)

    inv_freq = tl.exp(-(2.0 * p.to(tl.float32) / rot_dim) * log_base)
    ang = pos * inv_freq
    c = tl.cos(ang)
    s = tl.sin(ang)

    base = X + tok * sx_tok + h * sx_head
    x_even = tl.load(base + 2 * p, mask=in_rot, other=0.0).to(tl.float32)
    x_odd = tl.load(base + 2 * p + 1, mask=in_rot, other=0.0).to(tl.float32)
    out = Y + tok * sx_tok + h * sx_head
    tl.store(out + 2 * p, (x_even * c - x_odd * s).to(Y.dtype.element_ty), mask=in_rot)
    tl.store(out + 2 * p + 1, (x_odd * c + x_even * s).to(Y.dtype.element_ty), mask=in_rot)

    # dims past rot_dim pass through untouched (partial rotary)
    rest = rot_dim + tl.arange(0, 2 * BLOCK_P)
    pass_mask = rest < head_dim
    v = tl.load(base + rest, mask=pass_mask)
    tl.store(out + rest, v, mask=pass_mask)


def rope_gptj(x, positions, rot_dim=None, base=10000.0):
    """x: [tokens, heads, head_dim]; positions: [tokens] int."""
    T, H, D = x.shape
    rot_dim = D if rot_dim is None else rot_dim
    assert rot_dim % 2 == 0 and rot_dim <= D
    x = x.contiguous()
    y = torch.empty_like(x)
    BLOCK_P = triton.next_power_of_2(max(rot_dim // 2, (D - rot_dim + 1) // 2, 1))
    import math
    _rope_interleaved[(T, H)](x, positions, y, H, D, rot_dim, math.log(base),
                              x.stride(0), x.stride(1), BLOCK_P=BLOCK_P, num_warps=1)
    return y
