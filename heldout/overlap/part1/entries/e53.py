"""Jagged -> padded dense.

values:  [N, D]
offsets: [S + 1] int, monotone, offsets[0] == 0, offsets[S] == N
out:     [S, max_len, D]   out[s, i] = values[offsets[s] + i] for i < len(s), else pad
"""
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def jagged_to_padded_kernel(
    val_ptr, off_ptr, out_ptr,
    D, max_len, pad_value,
    stride_v, stride_os, stride_ol,
    BLOCK_D: tl.constexpr,
):
    seg = tl.program_id(0)
    dblk = tl.program_id(1)

    start = tl.load(off_ptr + seg)
    end = tl.load(off_ptr + seg + 1)
    length = tl.minimum(end - start, max_len)

    cols = dblk * BLOCK_D + tl.arange(0, BLOCK_D)
    cmask = cols < D

    pad = tl.full([BLOCK_D], pad_value, dtype=tl.float32)
    for i in range(0, max_len):
        dst = out_ptr + seg * stride_os + i * stride_ol + cols
        if i < length:
            v = tl.load(val_ptr + (start + i).to(tl.int64) * stride_v + cols, mask=cmask, other=0.0)
            tl.store(dst, v, mask=cmask)
        else:
            tl.store(dst, pad.to(out_ptr.dtype.element_ty), mask=cmask)


def jagged_to_padded(values: torch.Tensor, offsets: torch.Tensor, max_len: int,
                     pad_value: float = 0.0) -> torch.Tensor:
    assert values.dim() == 2 and offsets.dim() == 1
    values = values.contiguous()
    offsets = offsets.to(torch.int32).contiguous()
    num_seg = offsets.numel() - 1
    D = values.shape[1]
    out = torch.empty((num_seg, max_len, D), device=values.device, dtype=values.dtype)
    if num_seg == 0 or max_len == 0:
        return out
    BLOCK_D = min(triton.next_power_of_2(D), 512)
    grid = (num_seg, triton.cdiv(D, BLOCK_D))
    jagged_to_padded_kernel[grid](
        values, offsets, out, D, max_len, pad_value,
        values.stride(0), out.stride(0), out.stride(1),
        BLOCK_D=BLOCK_D, num_warps=4 if BLOCK_D >= 256 else 2,
    )
    return out


class ModelNew(nn.Module):
    def __init__(self, max_len: int, pad_value: float = 0.0):
        super().__init__()
        self.max_len = max_len
        self.pad_value = pad_value

    def forward(self, values, offsets):
        return jagged_to_padded(values, offsets, self.max_len, self.pad_value)
