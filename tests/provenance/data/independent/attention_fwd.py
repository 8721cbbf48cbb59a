"""Causal attention forward, one query block per program, online softmax over key blocks."""
import triton
import triton.language as tl


@triton.jit
def attn_fwd_kernel(Q, K, V, O, sm_scale, seqlen, stride_qm, stride_kn, stride_vn, stride_om,
                    BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, HEAD: tl.constexpr):
    start_m = tl.program_id(0)
    offs_m = start_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_d = tl.arange(0, HEAD)
    q = tl.load(Q + offs_m[:, None] * stride_qm + offs_d[None, :], mask=offs_m[:, None] < seqlen, other=0.0)
    m_i = tl.zeros([BLOCK_M], dtype=tl.float32) - float("inf")
    l_i = tl.zeros([BLOCK_M], dtype=tl.float32)
    acc = tl.zeros([BLOCK_M, HEAD], dtype=tl.float32)
    for start_n in range(0, (start_m + 1) * BLOCK_M, BLOCK_N):
        offs_n = start_n + tl.arange(0, BLOCK_N)
        k = tl.load(K + offs_n[None, :] * stride_kn + offs_d[:, None], mask=offs_n[None, :] < seqlen, other=0.0)
        qk = tl.dot(q, k) * sm_scale
        qk = tl.where(offs_m[:, None] >= offs_n[None, :], qk, float("-inf"))
        m_ij = tl.maximum(m_i, tl.max(qk, 1))
        p = tl.exp(qk - m_ij[:, None])
        alpha = tl.exp(m_i - m_ij)
        l_i = l_i * alpha + tl.sum(p, 1)
        v = tl.load(V + offs_n[:, None] * stride_vn + offs_d[None, :], mask=offs_n[:, None] < seqlen, other=0.0)
        acc = acc * alpha[:, None] + tl.dot(p, v)
        m_i = m_ij
    acc = acc / l_i[:, None]
    tl.store(O + offs_m[:, None] * stride_om + offs_d[None, :], acc, mask=offs_m[:, None] < seqlen)
