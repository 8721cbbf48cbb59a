"""Fused rotary embedding for q and k (NeoX half-split layout), optionally in place.

q: [T, Hq, D], k: [T, Hk, D]; positions either given per token or
implicit (pos = token_index + pos_offset, e.g. for a contiguous prefill chunk).
"""
import torch
import triton
import triton.language as tl


@triton.jit
def _rope_heads(base_ptr, tok, heads, n_heads, dims, half_dim, stride_t, stride_h, dmask, c, s,
                out_ptr, stride_ot, stride_oh):
    mask = (heads < n_heads)[:, None] & dmask[None, :]
    src = base_ptr + tok * stride_t + heads[:, None] * stride_h + dims[None, :]
    x1 = tl.load(src, mask=mask, other=0.0).to(tl.float32)
    x2 = tl.load(src + half_dim, mask=mask, other=0.0).to(tl.float32)
    dst = out_ptr + tok * stride_ot + heads[:, None] * stride_oh + dims[None, :]
    tl.store(dst, (x1 * c - x2 * s).to(out_ptr.dtype.element_ty), mask=mask)
    tl.store(dst + half_dim, (x2 * c + x1 * s).to(out_ptr.dtype.element_ty), mask=mask)


@triton.jit
def rope_qk_kernel(
    q_ptr, k_ptr, qo_ptr, ko_ptr, pos_ptr, cos_ptr, sin_ptr,
    n_q_heads, n_k_heads, half_dim, pos_offset,
    s_qt, s_qh, s_kt, s_kh, s_qot, s_qoh, s_kot, s_koh, s_cs,
    HAS_POS: tl.constexpr,
    BLOCK_H: tl.constexpr, BLOCK_HALF: tl.constexpr,
):
    tok = tl.program_id(0)
    hblk = tl.program_id(1)
    dims = tl.arange(0, BLOCK_HALF)
    dmask = dims < half_dim
    if HAS_POS:
        p = tl.load(pos_ptr + tok)
    else:
        p = tok + pos_offset
    c = tl.load(cos_ptr + p * s_cs + dims, mask=dmask, other=1.0).to(tl.float32)[None, :]
    s = tl.load(sin_ptr + p * s_cs + dims, mask=dmask, other=0.0).to(tl.float32)[None, :]

    heads = hblk * BLOCK_H + tl.arange(0, BLOCK_H)
    if hblk * BLOCK_H < n_q_heads:
        _rope_heads(q_ptr, tok, heads, n_q_heads, dims, half_dim, s_qt, s_qh, dmask, c, s,
                    qo_ptr, s_qot, s_qoh)
    if hblk * BLOCK_H < n_k_heads:
        _rope_heads(k_ptr, tok, heads, n_k_heads, dims, half_dim, s_kt, s_kh, dmask, c, s,
                    ko_ptr, s_kot, s_koh)


def rope_qk(q, k, cos, sin, positions=None, pos_offset=0, inplace=False):
    T, Hq, D = q.shape
    Hk = k.shape[1]
    assert D % 2 == 0 and k.shape[0] == T and k.shape[2] == D
    assert q.stride(-1) == 1 and k.stride(-1) == 1
    qo = q if inplace else torch.empty_like(q)
    ko = k if inplace else torch.empty_like(k)
    half = D // 2
    BLOCK_HALF = triton.next_power_of_2(half)
    BLOCK_H = max(1, min(16, 4096 // BLOCK_HALF))
    grid = (T, triton.cdiv(max(Hq, Hk), BLOCK_H))
    rope_qk_kernel[grid](
        q, k, qo, ko, positions if positions is not None else q, cos, sin,
        Hq, Hk, half, pos_offset,
        q.stride(0), q.stride(1), k.stride(0), k.stride(1),
        qo.stride(0), qo.stride(1), ko.stride(0), ko.stride(1), cos.stride(0),
        HAS_POS=positions is not None, BLOCK_H=BLOCK_H, BLOCK_HALF=BLOCK_HALF, num_warps=4,
    )
    return qo, ko
