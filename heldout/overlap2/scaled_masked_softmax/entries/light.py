# Repaired kernel: masked attention softmax (row-wise), fp32 math.
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.autotune(
    configs=[
        triton.Config({"TILE": 256}, num_warps=4),
        triton.Config({"TILE": 512}, num_warps=8),
        triton.Config({"TILE": 1024}, num_warps=8),
    ],
    key=["L"],
)
@triton.jit
def attn_probs(scores, masks, probs, L, ss, sm, sp, alpha, TILE: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, TILE)
    best = tl.full([TILE], -float("inf"), tl.float32)
    for start in range(0, L, TILE):
        j = start + offs
        ok = j < L
        a = tl.load(scores + row * ss + j, mask=ok, other=0.0).to(tl.float32)
        b = tl.load(masks + row * sm + j, mask=ok, other=0.0).to(tl.float32)
        v = tl.where(ok, a * alpha + b, -float("inf"))
        best = tl.maximum(best, v)
    top = tl.max(best, axis=0)

    tot = tl.zeros([TILE], tl.float32)
    for start in range(0, L, TILE):
        j = start + offs
        ok = j < L
        a = tl.load(scores + row * ss + j, mask=ok, other=0.0).to(tl.float32)
        b = tl.load(masks + row * sm + j, mask=ok, other=0.0).to(tl.float32)
        v = tl.where(ok, a * alpha + b, -float("inf"))
        tot += tl.exp(v - top)
    r = 1.0 / tl.sum(tot, axis=0)

    for start in range(0, L, TILE):
        j = start + offs
        ok = j < L
        a = tl.load(scores + row * ss + j, mask=ok, other=0.0).to(tl.float32)
        b = tl.load(masks + row * sm + j, mask=ok, other=0.0).to(tl.float32)
        v = tl.where(ok, a * alpha + b, -float("inf"))
        tl.store(probs + row * sp + j, tl.exp(v - top) * r, mask=ok)


class ModelNew(nn.Module):
    def __init__(self, scale: float = 0.125):
        super().__init__()
        self.scale = scale

    def forward(self, scores, mask):
        B, H, Q, K = scores.shape
        x = scores.reshape(-1, K).contiguous()
        m = mask.expand(B, H, Q, K).reshape(-1, K).contiguous()
        y = torch.empty_like(x, dtype=torch.float32)
        attn_probs[(x.shape[0],)](x, m, y, K, x.stride(0), m.stride(0), y.stride(0), self.scale)
        return y.reshape(B, H, Q, K).to(scores.dtype)
