import torch
import torch.nn as nn
import triton
import triton.language as tl

NEG_INF = float("-inf")


@triton.jit
def _softmax_lastdim(src, dst, src_pitch, dst_pitch, L, CHUNK: tl.constexpr):
    r = tl.program_id(0)
    src_row = src + r.to(tl.int64) * src_pitch
    dst_row = dst + r.to(tl.int64) * dst_pitch
    run_max = tl.full([CHUNK], float("-inf"), dtype=tl.float32)
    run_sum = tl.zeros([CHUNK], dtype=tl.float32)
    for c0 in range(0, L, CHUNK):
        j = c0 + tl.arange(0, CHUNK)
        v = tl.load(src_row + j, mask=j < L, other=float("-inf")).to(tl.float32)
        new_max = tl.maximum(run_max, v)
        scale = tl.where(new_max == float("-inf"), 0.0, tl.exp(run_max - new_max))
        e = tl.where(new_max == float("-inf"), 0.0, tl.exp(v - new_max))
        run_sum = run_sum * scale + e
        run_max = new_max
    gmax = tl.max(run_max, axis=0)
    denom = tl.sum(run_sum * tl.exp(run_max - gmax), axis=0)
    for c0 in range(0, L, CHUNK):
        j = c0 + tl.arange(0, CHUNK)
        ok = j < L
        v = tl.load(src_row + j, mask=ok, other=float("-inf")).to(tl.float32)
        tl.store(dst_row + j, (tl.exp(v - gmax) / denom).to(dst.dtype.element_ty), mask=ok)


def softmax_lastdim(t):
    shp = t.shape
    t2 = t.reshape(-1, shp[-1])
    if t2.stride(-1) != 1:
        t2 = t2.contiguous()
    R, L = t2.shape
    o = torch.empty_like(t2)
    CHUNK = min(triton.next_power_of_2(L), 4096)
    _softmax_lastdim[(R,)](t2, o, t2.stride(0), o.stride(0), L,
                           CHUNK=CHUNK, num_warps=16 if CHUNK >= 4096 else 8)
    return o.reshape(shp)


class Softmax(nn.Module):
    def forward(self, t):
        return softmax_lastdim(t)
