import math

import torch
import triton
import triton.language as tl


@triton.jit
def _apply_causal(acc, offs_m, offs_n, window):
    keep = offs_m[:, None] >= offs_n[None, :]
    if window > 0:
        keep = keep & (offs_m[:, None] - offs_n[None, :] < window)
    return tl.where(keep, acc, float("-inf"))


@triton.jit
def qk_logits_kernel(
    q_ptr, k_ptr, bias_ptr, s_ptr,
    seq_len, head_dim, sm_scale, window,
    stride_qz, stride_ql, stride_qd,
    stride_kz, stride_kl, stride_kd,
    stride_bm, stride_bn,
    stride_sz, stride_sm, stride_sn,
    HAS_BIAS: tl.constexpr,
    BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_D: tl.constexpr,
):
    z = tl.program_id(0)
    start_m = tl.program_id(1)
    start_n = tl.program_id(2)
    offs_m = start_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = start_n * BLOCK_N + tl.arange(0, BLOCK_N)
    offs_d = tl.arange(0, BLOCK_D)
    row_ok = offs_m < seq_len
    col_ok = offs_n < seq_len

    q_ptrs = q_ptr + z * stride_qz + offs_m[:, None] * stride_ql + offs_d[None, :] * stride_qd
    k_ptrs = k_ptr + z * stride_kz + offs_n[:, None] * stride_kl + offs_d[None, :] * stride_kd
    acc = tl.zeros([BLOCK_M, BLOCK_N], dtype=tl.float32)
    if start_n * BLOCK_N <= start_m * BLOCK_M + BLOCK_M - 1:
        for d0 in range(0, head_dim, BLOCK_D):
            d_ok = (d0 + offs_d) < head_dim
            q = tl.load(q_ptrs, mask=row_ok[:, None] & d_ok[None, :], other=0.0)
            k = tl.load(k_ptrs, mask=col_ok[:, None] & d_ok[None, :], other=0.0)
            acc += tl.dot(q, tl.trans(k))
            q_ptrs += BLOCK_D * stride_qd
            k_ptrs += BLOCK_D * stride_kd

    acc *= sm_scale
    if HAS_BIAS:
        acc += tl.load(bias_ptr + offs_m[:, None] * stride_bm + offs_n[None, :] * stride_bn,
                       mask=row_ok[:, None] & col_ok[None, :], other=0.0).to(tl.float32)
    acc = _apply_causal(acc, offs_m, offs_n, window)
    tl.store(s_ptr + z * stride_sz + offs_m[:, None] * stride_sm + offs_n[None, :] * stride_sn,
             acc, mask=row_ok[:, None] & col_ok[None, :])


def qk_logits(q, k, bias=None, scale=None, window=0):
    """Causal (optionally sliding-window) logits with an optional [L, L] additive bias."""
    B, H, L, D = q.shape
    scale = scale if scale is not None else 1.0 / math.sqrt(D)
    q3, k3 = q.reshape(B * H, L, D), k.reshape(B * H, L, D)
    s = torch.empty((B * H, L, L), device=q.device, dtype=torch.float32)
    BM = BN = 64
    BD = max(16, min(64, triton.next_power_of_2(D)))
    b = bias if bias is not None else s
    qk_logits_kernel[(B * H, triton.cdiv(L, BM), triton.cdiv(L, BN))](
        q3, k3, b, s, L, D, scale, window,
        *q3.stride(), *k3.stride(), b.stride(-2), b.stride(-1), *s.stride(),
        HAS_BIAS=bias is not None, BLOCK_M=BM, BLOCK_N=BN, BLOCK_D=BD,
        num_warps=4, num_stages=3,
    )
    return s.view(B, H, L, L)


class ModelNew(torch.nn.Module):
    def forward(self, q, k):
        return qk_logits(q, k)
