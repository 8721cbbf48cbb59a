"""Reference-path attention pieces used by the eval harness.

The production path uses a fused flash kernel; these unfused kernels are kept
so that intermediate tensors (logits, probabilities) can be dumped and diffed.
"""
import math

import torch
import triton
import triton.language as tl


# ---------------------------------------------------------------- rotary ---
@triton.jit
def _rope_kernel(X, COS, SIN, Y, L, D_HALF, stride_row, stride_pos, BLOCK: tl.constexpr):
    row = tl.program_id(0)               # flattened (batch*head*pos)
    pos = row % L
    d = tl.arange(0, BLOCK)
    m = d < D_HALF
    x1 = tl.load(X + row * stride_row + d, mask=m, other=0.0).to(tl.float32)
    x2 = tl.load(X + row * stride_row + D_HALF + d, mask=m, other=0.0).to(tl.float32)
    c = tl.load(COS + pos * stride_pos + d, mask=m, other=1.0)
    s = tl.load(SIN + pos * stride_pos + d, mask=m, other=0.0)
    tl.store(Y + row * stride_row + d, (x1 * c - x2 * s).to(Y.dtype.element_ty), mask=m)
    tl.store(Y + row * stride_row + D_HALF + d, (x2 * c + x1 * s).to(Y.dtype.element_ty), mask=m)


def apply_rope(x, cos, sin):
    B, H, L, D = x.shape
    xf = x.reshape(-1, D).contiguous()
    y = torch.empty_like(xf)
    _rope_kernel[(xf.shape[0],)](xf, cos, sin, y, L, D // 2, xf.stride(0), cos.stride(0),
                                 BLOCK=triton.next_power_of_2(D // 2))
    return y.view(B, H, L, D)


# ---------------------------------------------------------------- logits ---
@triton.jit
def _logits_kernel(q_ptr, k_ptr, s_ptr, seq_len, head_dim, sm_scale,
                   stride_qz, stride_ql, stride_qd,
                   stride_kz, stride_kl, stride_kd,
                   stride_sz, stride_sm, stride_sn,
                   BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_D: tl.constexpr):
    start_m = tl.program_id(0)
    start_n = tl.program_id(1)
    z = tl.program_id(2)
    offs_m = start_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = start_n * BLOCK_N + tl.arange(0, BLOCK_N)
    offs_d = tl.arange(0, BLOCK_D)

    acc = tl.zeros([BLOCK_M, BLOCK_N], dtype=tl.float32)
    if start_n * BLOCK_N < (start_m + 1) * BLOCK_M:
        for d0 in range(0, head_dim, BLOCK_D):
            dd = d0 + offs_d
            q = tl.load(q_ptr + z * stride_qz + offs_m[:, None] * stride_ql + dd[None, :] * stride_qd,
                        mask=(offs_m[:, None] < seq_len) & (dd[None, :] < head_dim), other=0.0)
            kt = tl.load(k_ptr + z * stride_kz + offs_n[None, :] * stride_kl + dd[:, None] * stride_kd,
                         mask=(offs_n[None, :] < seq_len) & (dd[:, None] < head_dim), other=0.0)
            acc += tl.dot(q, kt)
    acc = tl.where(offs_m[:, None] >= offs_n[None, :], acc * sm_scale, float("-inf"))
    tl.store(s_ptr + z * stride_sz + offs_m[:, None] * stride_sm + offs_n[None, :] * stride_sn,
             acc, mask=(offs_m[:, None] < seq_len) & (offs_n[None, :] < seq_len))


def causal_logits(q, k):
    B, H, L, D = q.shape
    q3, k3 = q.reshape(B * H, L, D), k.reshape(B * H, L, D)
    s = torch.empty((B * H, L, L), device=q.device, dtype=torch.float32)
    bd = max(16, min(64, triton.next_power_of_2(D)))
    _logits_kernel[(triton.cdiv(L, 64), triton.cdiv(L, 64), B * H)](
        q3, k3, s, L, D, 1.0 / math.sqrt(D),
        *q3.stride(), *k3.stride(), *s.stride(),
        BLOCK_M=64, BLOCK_N=64, BLOCK_D=bd, num_warps=4)
    return s.view(B, H, L, L)


# --------------------------------------------------------------- softmax ---
@triton.jit
def _softmax_rows(S, P, N, stride, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    x = tl.load(S + row * stride + cols, mask=cols < N, other=float("-inf"))
    x = x - tl.max(x, axis=0)
    e = tl.exp(x)
    tl.store(P + row * stride + cols, e / tl.sum(e, axis=0), mask=cols < N)


def softmax_lastdim(s):
    s2 = s.reshape(-1, s.shape[-1])
    p = torch.empty_like(s2)
    _softmax_rows[(s2.shape[0],)](s2, p, s2.shape[1], s2.stride(0),
                                  BLOCK=triton.next_power_of_2(s2.shape[1]))
    return p.view_as(s)


# -------------------------------------------------------------- kv cache ---
@triton.jit
def _kv_append(NEW, CACHE, SLOTS, D, stride_new, stride_cache, BLOCK: tl.constexpr):
    tok = tl.program_id(0)
    slot = tl.load(SLOTS + tok)
    d = tl.arange(0, BLOCK)
    v = tl.load(NEW + tok * stride_new + d, mask=d < D)
    tl.store(CACHE + slot * stride_cache + d, v, mask=(d < D) & (slot >= 0))


def kv_append(new_kv, cache, slots):
    D = new_kv.shape[-1]
    nk = new_kv.reshape(-1, D)
    _kv_append[(nk.shape[0],)](nk, cache, slots, D, nk.stride(0), cache.stride(0),
                               BLOCK=triton.next_power_of_2(D))


def unfused_attention(q, k, v, cos=None, sin=None):
    if cos is not None:
        q, k = apply_rope(q, cos, sin), apply_rope(k, cos, sin)
    p = softmax_lastdim(causal_logits(q, k))
    return torch.matmul(p.to(v.dtype), v)
