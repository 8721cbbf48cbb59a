"""Attention probabilities: softmax(scores * scale + additive_mask) over the key dimension, one program per query row."""
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.autotune(
    configs=[
        triton.Config({"BLOCK_K": 256}, num_warps=4),
        triton.Config({"BLOCK_K": 512}, num_warps=8),
        triton.Config({"BLOCK_K": 1024}, num_warps=8),
    ],
    key=["n_keys"],
)
@triton.jit
def scaled_masked_softmax_kernel(s_ptr, m_ptr, p_ptr, n_keys, stride_s, stride_m, stride_p, scale,
                                 BLOCK_K: tl.constexpr):
    q = tl.program_id(0)
    cols = tl.arange(0, BLOCK_K)
    # pass 1: running max of the scaled, masked scores
    row_max = tl.full([BLOCK_K], -float("inf"), tl.float32)
    for k0 in range(0, n_keys, BLOCK_K):
        k = k0 + cols
        valid = k < n_keys
        s = tl.load(s_ptr + q * stride_s + k, mask=valid, other=0.0).to(tl.float32)
        bias = tl.load(m_ptr + q * stride_m + k, mask=valid, other=0.0).to(tl.float32)
        z = tl.where(valid, s * scale + bias, -float("inf"))
        row_max = tl.maximum(row_max, z)
    mx = tl.max(row_max, axis=0)
    # pass 2: the normaliser
    acc = tl.zeros([BLOCK_K], tl.float32)
    for k0 in range(0, n_keys, BLOCK_K):
        k = k0 + cols
        valid = k < n_keys
        s = tl.load(s_ptr + q * stride_s + k, mask=valid, other=0.0).to(tl.float32)
        bias = tl.load(m_ptr + q * stride_m + k, mask=valid, other=0.0).to(tl.float32)
        z = tl.where(valid, s * scale + bias, -float("inf"))
        acc += tl.exp(z - mx)
    inv = 1.0 / tl.sum(acc, axis=0)
    # pass 3: write the probabilities
    for k0 in range(0, n_keys, BLOCK_K):
        k = k0 + cols
        valid = k < n_keys
        s = tl.load(s_ptr + q * stride_s + k, mask=valid, other=0.0).to(tl.float32)
        bias = tl.load(m_ptr + q * stride_m + k, mask=valid, other=0.0).to(tl.float32)
        z = tl.where(valid, s * scale + bias, -float("inf"))
        tl.store(p_ptr + q * stride_p + k, tl.exp(z - mx) * inv, mask=valid)


class ModelNew(nn.Module):
    def __init__(self, scale: float = 0.125):
        super().__init__()
        self.scale = scale

    def forward(self, scores, mask):
        b, h, nq, nk = scores.shape
        s2 = scores.reshape(-1, nk).contiguous()
        m2 = mask.expand(b, h, nq, nk).reshape(-1, nk).contiguous()
        out = torch.empty_like(s2, dtype=torch.float32)
        scaled_masked_softmax_kernel[(s2.shape[0],)](s2, m2, out, nk, s2.stride(0), m2.stride(0), out.stride(0),
                                                     self.scale)
        return out.reshape(b, h, nq, nk).to(scores.dtype)
