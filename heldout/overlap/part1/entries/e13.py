"""Pre-attention plumbing for the paged decoder.

qkv projection output is packed as [T, (Hq + 2*Hkv) * D]; these kernels split
it, rotate q/k and scatter k/v into the paged cache.
"""
import torch
import triton
import triton.language as tl


@triton.jit
def _split_qkv_kernel(qkv, q, k, v, Hq, Hkv, D, s_qkv, s_q, s_k, s_v, BLOCK_D: tl.constexpr):
    t = tl.program_id(0)
    h = tl.program_id(1)
    d = tl.arange(0, BLOCK_D)
    dm = d < D
    src = qkv + t * s_qkv + h * D + d
    x = tl.load(src, mask=dm)
    if h < Hq:
        tl.store(q + t * s_q + h * D + d, x, mask=dm)
    elif h < Hq + Hkv:
        tl.store(k + t * s_k + (h - Hq) * D + d, x, mask=dm)
    else:
        tl.store(v + t * s_v + (h - Hq - Hkv) * D + d, x, mask=dm)


@triton.jit
def _rotary_kernel(x_ptr, out_ptr, pos_ptr, cos_ptr, sin_ptr, n_heads, half_dim,
                   stride_xt, stride_xh, stride_ot, stride_oh, stride_cs,
                   BLOCK_H: tl.constexpr, BLOCK_HALF: tl.constexpr):
    tok = tl.program_id(0)
    heads = tl.program_id(1) * BLOCK_H + tl.arange(0, BLOCK_H)
    dims = tl.arange(0, BLOCK_HALF)
    dmask = dims < half_dim
    mask = (heads < n_heads)[:, None] & dmask[None, :]
    p = tl.load(pos_ptr + tok)
    c = tl.load(cos_ptr + p * stride_cs + dims, mask=dmask, other=1.0).to(tl.float32)
    s = tl.load(sin_ptr + p * stride_cs + dims, mask=dmask, other=0.0).to(tl.float32)
    base_x = x_ptr + tok * stride_xt + heads[:, None] * stride_xh + dims[None, :]
    x1 = tl.load(base_x, mask=mask, other=0.0).to(tl.float32)
    x2 = tl.load(base_x + half_dim, mask=mask, other=0.0).to(tl.float32)
    o1 = x1 * c[None, :] - x2 * s[None, :]
    o2 = x2 * c[None, :] + x1 * s[None, :]
    base_o = out_ptr + tok * stride_ot + heads[:, None] * stride_oh + dims[None, :]
    tl.store(base_o, o1.to(out_ptr.dtype.element_ty), mask=mask)
    tl.store(base_o + half_dim, o2.to(out_ptr.dtype.element_ty), mask=mask)


@triton.jit
def _paged_store_kernel(k, v, k_cache, v_cache, slot_mapping, Hkv, D,
                        s_k, s_v, s_cb, s_cp, s_ch, PAGE: tl.constexpr, BLOCK_D: tl.constexpr):
    t = tl.program_id(0)
    h = tl.program_id(1)
    slot = tl.load(slot_mapping + t)
    if slot < 0:
        return
    page = slot // PAGE
    off = slot % PAGE
    d = tl.arange(0, BLOCK_D)
    dm = d < D
    kv = tl.load(k + t * s_k + h * D + d, mask=dm)
    vv = tl.load(v + t * s_v + h * D + d, mask=dm)
    dst = page * s_cb + off * s_cp + h * s_ch + d
    tl.store(k_cache + dst, kv, mask=dm)
    tl.store(v_cache + dst, vv, mask=dm)


class AttnPrep:
    def __init__(self, n_q_heads, n_kv_heads, head_dim, max_pos, page_size=16, base=10000.0,
                 device="cuda"):
        self.Hq, self.Hkv, self.D = n_q_heads, n_kv_heads, head_dim
        self.page = page_size
        inv = 1.0 / (base ** (torch.arange(0, head_dim, 2, device=device).float() / head_dim))
        ang = torch.outer(torch.arange(max_pos, device=device).float(), inv)
        self.cos = ang.cos().contiguous()
        self.sin = ang.sin().contiguous()

    def split(self, qkv):
        T = qkv.shape[0]
        q = qkv.new_empty((T, self.Hq, self.D))
        k = qkv.new_empty((T, self.Hkv, self.D))
        v = qkv.new_empty((T, self.Hkv, self.D))
        BD = triton.next_power_of_2(self.D)
        _split_qkv_kernel[(T, self.Hq + 2 * self.Hkv)](
            qkv, q, k, v, self.Hq, self.Hkv, self.D,
            qkv.stride(0), q.stride(0), k.stride(0), v.stride(0), BLOCK_D=BD)
        return q, k, v

    def rotate(self, x, positions):
        T, H, D = x.shape
        out = torch.empty_like(x)
        half = D // 2
        BH = triton.next_power_of_2(half)
        BLOCK_H = max(1, min(16, 4096 // BH))
        _rotary_kernel[(T, triton.cdiv(H, BLOCK_H))](
            x, out, positions, self.cos, self.sin, H, half,
            x.stride(0), x.stride(1), out.stride(0), out.stride(1), self.cos.stride(0),
            BLOCK_H=BLOCK_H, BLOCK_HALF=BH, num_warps=4)
        return out

    def store(self, k, v, k_cache, v_cache, slot_mapping):
        T = k.shape[0]
        BD = triton.next_power_of_2(self.D)
        _paged_store_kernel[(T, self.Hkv)](
            k, v, k_cache, v_cache, slot_mapping, self.Hkv, self.D,
            k.stride(0), v.stride(0), k_cache.stride(0), k_cache.stride(1), k_cache.stride(2),
            PAGE=self.page, BLOCK_D=BD)

    def __call__(self, qkv, positions, k_cache, v_cache, slot_mapping):
        q, k, v = self.split(qkv)
        q = self.rotate(q, positions)
        k = self.rotate(k, positions)
        self.store(k, v, k_cache, v_cache, slot_mapping)
        return q


def make_kv_cache(num_pages, page_size, n_kv_heads, head_dim, dtype=torch.bfloat16, device="cuda"):
    shape = (num_pages, page_size, n_kv_heads, head_dim)
    return torch.zeros(shape, dtype=dtype, device=device), torch.zeros(shape, dtype=dtype, device=device)


def slot_mapping_for(block_tables, seq_lens, page_size):
    """Flat cache slots for the last token of each sequence (decode step)."""
    pos = seq_lens - 1
    page_idx = pos // page_size
    pages = block_tables.gather(1, page_idx.unsqueeze(1)).squeeze(1)
    return pages * page_size + pos % page_size


def positions_for_prefill(seq_lens, start_pos=None):
    """Concatenated positions for a ragged prefill batch."""
    chunks = []
    for i, n in enumerate(seq_lens.tolist()):
        base = 0 if start_pos is None else int(start_pos[i])
        chunks.append(torch.arange(base, base + n, device=seq_lens.device))
    return torch.cat(chunks) if chunks else seq_lens.new_empty(0)
