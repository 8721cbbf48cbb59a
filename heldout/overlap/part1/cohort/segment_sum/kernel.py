"""Segment (CSR) sum.

values:  [N, D]
offsets: [S + 1] int, monotone, offsets[0] == 0, offsets[S] == N
out:     [S, D]   out[s] = values[offsets[s]:offsets[s+1]].sum(0)
"""
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def segment_sum_kernel(
    val_ptr, off_ptr, out_ptr,
    D,
    stride_v, stride_o,
    BLOCK_D: tl.constexpr,
):
    seg = tl.program_id(0)
    dblk = tl.program_id(1)

    start = tl.load(off_ptr + seg)
    end = tl.load(off_ptr + seg + 1)

    cols = dblk * BLOCK_D + tl.arange(0, BLOCK_D)
    cmask = cols < D

    acc = tl.zeros([BLOCK_D], dtype=tl.float32)
    for r in range(start, end):
        v = tl.load(val_ptr + r.to(tl.int64) * stride_v + cols, mask=cmask, other=0.0)
        acc += v.to(tl.float32)

    tl.store(out_ptr + seg * stride_o + cols, acc.to(out_ptr.dtype.element_ty), mask=cmask)


def segment_sum(values: torch.Tensor, offsets: torch.Tensor) -> torch.Tensor:
    assert values.dim() == 2 and offsets.dim() == 1
    values = values.contiguous()
    offsets = offsets.to(torch.int32).contiguous()
    num_seg = offsets.numel() - 1
    D = values.shape[1]
    out = torch.empty((num_seg, D), device=values.device, dtype=values.dtype)
    if num_seg == 0:
        return out
    BLOCK_D = min(triton.next_power_of_2(D), 512)
    grid = (num_seg, triton.cdiv(D, BLOCK_D))
    segment_sum_kernel[grid](
        values, offsets, out, D,
        values.stride(0), out.stride(0),
        BLOCK_D=BLOCK_D, num_warps=4 if BLOCK_D >= 256 else 2,
    )
    return out


class ModelNew(nn.Module):
    def forward(self, values, offsets):
        return segment_sum(values, offsets)
