"""A small attention layer for an encoder: QK^T by torch, the probabilities by the Triton kernel below, then PV."""
import math

import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def scaled_masked_softmax_kernel(s_ptr, m_ptr, p_ptr, n_keys, stride_s, stride_m, stride_p, scale,
                                 BLOCK_K: tl.constexpr):
    q = tl.program_id(0)
    cols = tl.arange(0, BLOCK_K)
    row_max = tl.full([BLOCK_K], -float("inf"), tl.float32)
    for k0 in range(0, n_keys, BLOCK_K):
        k = k0 + cols
        valid = k < n_keys
        s = tl.load(s_ptr + q * stride_s + k, mask=valid, other=0.0).to(tl.float32)
        bias = tl.load(m_ptr + q * stride_m + k, mask=valid, other=0.0).to(tl.float32)
        z = tl.where(valid, s * scale + bias, -float("inf"))
        row_max = tl.maximum(row_max, z)
    mx = tl.max(row_max, axis=0)
    acc = tl.zeros([BLOCK_K], tl.float32)
    for k0 in range(0, n_keys, BLOCK_K):
        k = k0 + cols
        valid = k < n_keys
        s = tl.load(s_ptr + q * stride_s + k, mask=valid, other=0.0).to(tl.float32)
        bias = tl.load(m_ptr + q * stride_m + k, mask=valid, other=0.0).to(tl.float32)
        z = tl.where(valid, s * scale + bias, -float("inf"))
        acc += tl.exp(z - mx)
    inv = 1.0 / tl.sum(acc, axis=0)
    for k0 in range(0, n_keys, BLOCK_K):
        k = k0 + cols
        valid = k < n_keys
        s = tl.load(s_ptr + q * stride_s + k, mask=valid, other=0.0).to(tl.float32)
        bias = tl.load(m_ptr + q * stride_m + k, mask=valid, other=0.0).to(tl.float32)
        z = tl.where(valid, s * scale + bias, -float("inf"))
        tl.store(p_ptr + q * stride_p + k, tl.exp(z - mx) * inv, mask=valid)


class EncoderSelfAttention(nn.Module):
    def __init__(self, d_model: int, n_heads: int, dropout: float = 0.0):
        super().__init__()
        self.h, self.dk = n_heads, d_model // n_heads
        self.qkv = nn.Linear(d_model, 3 * d_model)
        self.proj = nn.Linear(d_model, d_model)
        self.drop = nn.Dropout(dropout)

    def forward(self, x, key_padding_mask):
        B, T, _ = x.shape
        q, k, v = self.qkv(x).view(B, T, 3, self.h, self.dk).permute(2, 0, 3, 1, 4)
        scores = (q @ k.transpose(-1, -2)).reshape(-1, T).contiguous()
        bias = torch.zeros(B, 1, 1, T, device=x.device).masked_fill(key_padding_mask[:, None, None, :], -1e9)
        bias = bias.expand(B, self.h, T, T).reshape(-1, T).contiguous()
        probs = torch.empty_like(scores)
        scaled_masked_softmax_kernel[(scores.shape[0],)](scores, bias, probs, T, scores.stride(0), bias.stride(0),
                                                         probs.stride(0), 1.0 / math.sqrt(self.dk), BLOCK_K=256)
        out = self.drop(probs.view(B, self.h, T, T)) @ v
        return self.proj(out.transpose(1, 2).reshape(B, T, -1))
