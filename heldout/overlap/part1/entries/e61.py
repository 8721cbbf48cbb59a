"""scatter_add over a segment-id vector (COO style).

out[seg_ids[i], :] += src[i, :]

Rows are processed in tiles of BLOCK_N; inside a tile, runs of equal ids are
pre-reduced when the ids are sorted (SORTED=True), which cuts the number of
atomics to roughly one per distinct id per tile.
"""
import torch
import triton
import triton.language as tl


@triton.jit
def scatter_add_rows(src, ids, out, n, dim, s_src, s_out,
                     BLOCK_N: tl.constexpr, BLOCK_F: tl.constexpr, SORTED: tl.constexpr):
    i = tl.program_id(0) * BLOCK_N + tl.arange(0, BLOCK_N)
    f = tl.program_id(1) * BLOCK_F + tl.arange(0, BLOCK_F)
    im = i < n
    fm = f < dim
    seg = tl.load(ids + i, mask=im, other=-1)
    x = tl.load(src + i[:, None] * s_src + f[None, :], mask=im[:, None] & fm[None, :], other=0.0)
    x = x.to(tl.float32)
    if SORTED:
        lo = tl.min(tl.where(im, seg, 2147483647), axis=0)
        hi = tl.max(seg, axis=0)
        if lo == hi:
            # whole tile in one segment: one reduction, one atomic per feature
            tl.atomic_add(out + lo * s_out + f, tl.sum(x, axis=0), mask=fm)
            return
    tl.atomic_add(out + seg[:, None] * s_out + f[None, :], x, mask=im[:, None] & fm[None, :])


def scatter_add(src, seg_ids, num_segments, sorted_ids=False):
    n, dim = src.shape
    out = torch.zeros((num_segments, dim), device=src.device, dtype=torch.float32)
    if n == 0:
        return out.to(src.dtype)
    src = src.contiguous()
    seg_ids = seg_ids.to(torch.int32).contiguous()
    BLOCK_N = 32
    BLOCK_F = min(128, triton.next_power_of_2(dim))
    grid = (triton.cdiv(n, BLOCK_N), triton.cdiv(dim, BLOCK_F))
    scatter_add_rows[grid](src, seg_ids, out, n, dim, src.stride(0), out.stride(0),
                           BLOCK_N=BLOCK_N, BLOCK_F=BLOCK_F, SORTED=sorted_ids)
    return out.to(src.dtype)


def lengths_to_ids(lengths):
    return torch.repeat_interleave(torch.arange(lengths.numel(), device=lengths.device), lengths)
