import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def row_std_kernel(in_ptr, out_ptr, num_cols, in_stride, BLOCK_SIZE: tl.constexpr):
    row_idx = tl.program_id(0)
    col_offsets = tl.arange(0, BLOCK_SIZE)
    mask = col_offsets <= num_cols
    vals = tl.load(in_ptr + row_idx * in_stride + col_offsets, mask=mask, other=0.0)
    mean = tl.sum(vals, axis=0) / num_cols
    centered = tl.where(mask, vals - mean, 0.0)
    sq_sum = tl.sum(centered * centered, axis=0)
    tl.store(out_ptr + row_idx, tl.sqrt(sq_sum / (num_cols - 1)))


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        x = x.contiguous()
        n_rows, n_cols = x.shape
        out = torch.empty(n_rows, device=x.device, dtype=x.dtype)
        row_std_kernel[(n_rows,)](x, out, n_cols, x.stride(0), BLOCK_SIZE=triton.next_power_of_2(n_cols))
        return out
