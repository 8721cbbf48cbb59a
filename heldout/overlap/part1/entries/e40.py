"""values [N, D], offsets [S+1] -> out [S, D] with out[s] = sum of rows in segment s."""
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def segment_sum_kernel(
    val_ptr, off_ptr, out_ptr,
    D,
    stride_v, stride_o,
    BLOCK_R: tl.constexpr,
    BLOCK_D: tl.constexpr,
):
    seg = tl.program_id(0)
    cols = tl.program_id(1) * BLOCK_D + tl.arange(0, BLOCK_D)
    cmask = cols < D
    out_ptrs = out_ptr + seg * stride_o + cols

    start = tl.load(off_ptr + seg)
    end = tl.load(off_ptr + seg + 1)
    if end <= start:
        tl.store(out_ptrs, tl.zeros([BLOCK_D], dtype=out_ptr.dtype.element_ty), mask=cmask)
        return

    # BLOCK_R rows of the segment per iteration, reduced over axis 0 at the end
    acc = tl.zeros([BLOCK_R, BLOCK_D], dtype=tl.float32)
    for r0 in range(start, end, BLOCK_R):
        rows = r0 + tl.arange(0, BLOCK_R)
        ptrs = val_ptr + rows[:, None].to(tl.int64) * stride_v + cols[None, :]
        v = tl.load(ptrs, mask=(rows[:, None] < end) & cmask[None, :], other=0.0)
        acc += v.to(tl.float32)
    tl.store(out_ptrs, tl.sum(acc, axis=0).to(out_ptr.dtype.element_ty), mask=cmask)


def segment_sum(values, offsets, rows_per_iter=8):
    assert values.dim() == 2 and offsets.dim() == 1
    values = values.contiguous()
    offsets = offsets.to(torch.int32).contiguous()
    num_seg = offsets.numel() - 1
    D = values.shape[1]
    out = torch.empty((num_seg, D), device=values.device, dtype=values.dtype)
    if num_seg == 0:
        return out
    BLOCK_D = min(triton.next_power_of_2(D), 256)
    segment_sum_kernel[(num_seg, triton.cdiv(D, BLOCK_D))](
        values, offsets, out, D, values.stride(0), out.stride(0),
        BLOCK_R=rows_per_iter, BLOCK_D=BLOCK_D, num_warps=4,
    )
    return out


class ModelNew(nn.Module):
    def forward(self, values, offsets):
        return segment_sum(values, offsets)
