"""Token sampling kernels for the decode loop.

logits: [batch, vocab] (fp32 or bf16). Everything runs one row per program.
"""
import torch
import triton
import triton.language as tl


@triton.jit
def _repetition_penalty_kernel(logits, prev_ids, n_prev, stride_l, stride_p, penalty):
    b = tl.program_id(0)
    i = tl.program_id(1)
    if i < n_prev:
        tok = tl.load(prev_ids + b * stride_p + i)
        if tok >= 0:
            ptr = logits + b * stride_l + tok
            v = tl.load(ptr)
            v = tl.where(v > 0, v / penalty, v * penalty)
            tl.store(ptr, v)


@triton.jit
def _greedy_kernel(logits, out_ids, stride_l, vocab, BLOCK: tl.constexpr):
    b = tl.program_id(0)
    row = logits + b * stride_l
    best_v = tl.full([BLOCK], float("-inf"), tl.float32)
    best_i = tl.zeros([BLOCK], tl.int32)
    for off in range(0, vocab, BLOCK):
        idx = off + tl.arange(0, BLOCK)
        v = tl.load(row + idx, mask=idx < vocab, other=float("-inf")).to(tl.float32)
        take = v > best_v
        best_v = tl.where(take, v, best_v)
        best_i = tl.where(take, idx, best_i)
    m = tl.max(best_v, axis=0)
    cand = tl.where(best_v == m, best_i, vocab)
    tl.store(out_ids + b, tl.min(cand, axis=0))


@triton.jit
def _probs_kernel(logits, probs, stride_l, stride_p, vocab, inv_temp, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    src = logits + row * stride_l
    dst = probs + row * stride_p
    m_i = tl.full([BLOCK], float("-inf"), dtype=tl.float32)
    d_i = tl.zeros([BLOCK], dtype=tl.float32)
    for off in range(0, vocab, BLOCK):
        idx = off + tl.arange(0, BLOCK)
        x = tl.load(src + idx, mask=idx < vocab, other=float("-inf")).to(tl.float32) * inv_temp
        m_new = tl.maximum(m_i, x)
        alpha = tl.where(m_new == float("-inf"), 0.0, tl.exp(m_i - m_new))
        p = tl.where(m_new == float("-inf"), 0.0, tl.exp(x - m_new))
        d_i = d_i * alpha + p
        m_i = m_new
    m = tl.max(m_i, axis=0)
    d = tl.sum(d_i * tl.exp(m_i - m), axis=0)
    for off in range(0, vocab, BLOCK):
        idx = off + tl.arange(0, BLOCK)
        mask = idx < vocab
        x = tl.load(src + idx, mask=mask, other=float("-inf")).to(tl.float32) * inv_temp
        tl.store(dst + idx, tl.exp(x - m) / d, mask=mask)


@triton.jit
def _gumbel_argmax_kernel(probs, out_ids, stride_p, vocab, seed, BLOCK: tl.constexpr):
    # argmax(log p - log(-log u)) == argmax(p / E), E ~ Exp(1)
    b = tl.program_id(0)
    row = probs + b * stride_p
    best_v = tl.full([BLOCK], -1.0, tl.float32)
    best_i = tl.zeros([BLOCK], tl.int32)
    for off in range(0, vocab, BLOCK):
        idx = off + tl.arange(0, BLOCK)
        p = tl.load(row + idx, mask=idx < vocab, other=0.0)
        u = tl.rand(seed, b * vocab + idx)
        e = -tl.log(tl.maximum(u, 1e-10))
        s = tl.where(idx < vocab, p / e, -1.0)
        take = s > best_v
        best_v = tl.where(take, s, best_v)
        best_i = tl.where(take, idx, best_i)
    m = tl.max(best_v, axis=0)
    tl.store(out_ids + b, tl.min(tl.where(best_v == m, best_i, vocab), axis=0))


def _block_for(vocab):
    return min(triton.next_power_of_2(vocab), 4096)


def apply_repetition_penalty_(logits, prev_ids, penalty):
    if penalty == 1.0 or prev_ids.numel() == 0:
        return logits
    B, n_prev = prev_ids.shape
    _repetition_penalty_kernel[(B, n_prev)](
        logits, prev_ids, n_prev, logits.stride(0), prev_ids.stride(0), penalty
    )
    return logits


def greedy(logits):
    B, V = logits.shape
    out = torch.empty(B, device=logits.device, dtype=torch.int32)
    _greedy_kernel[(B,)](logits, out, logits.stride(0), V, BLOCK=_block_for(V), num_warps=8)
    return out


def probs_from_logits(logits, temperature=1.0):
    B, V = logits.shape
    probs = torch.empty((B, V), device=logits.device, dtype=torch.float32)
    _probs_kernel[(B,)](
        logits, probs, logits.stride(0), probs.stride(0), V, 1.0 / temperature,
        BLOCK=_block_for(V), num_warps=8,
    )
    return probs


def sample(logits, temperature=1.0, penalty=1.0, prev_ids=None, seed=0):
    if prev_ids is not None:
        logits = apply_repetition_penalty_(logits.clone(), prev_ids, penalty)
    if temperature <= 0.0:
        return greedy(logits)
    probs = probs_from_logits(logits, temperature)
    B, V = probs.shape
    out = torch.empty(B, device=logits.device, dtype=torch.int32)
    _gumbel_argmax_kernel[(B,)](probs, out, probs.stride(0), V, seed, BLOCK=_block_for(V), num_warps=8)
    return out


def top_k_filter_(logits, k):
    """Mask everything outside the top-k of each row with -inf (in place)."""
    if k <= 0 or k >= logits.shape[-1]:
        return logits
    kth = torch.topk(logits, k, dim=-1).values[:, -1:]
    logits.masked_fill_(logits < kth, float("-inf"))
    return logits


def top_p_filter_(logits, p):
    if p >= 1.0:
        return logits
    sorted_logits, order = torch.sort(logits, dim=-1, descending=True)
    cum = torch.cumsum(torch.softmax(sorted_logits.float(), dim=-1), dim=-1)
    drop = cum - torch.softmax(sorted_logits.float(), dim=-1) > p
    sorted_logits.masked_fill_(drop, float("-inf"))
    logits.scatter_(-1, order, sorted_logits)
    return logits
