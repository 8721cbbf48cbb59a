import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def row_range_kernel(
    input_ptr,
    output_ptr,
    n_cols,
    input_row_stride,
    BLOCK_SIZE: tl.constexpr,
):
    # One program instance per row
    row_idx = tl.program_id(0)
    row_start_ptr = input_ptr + row_idx * input_row_stride
    col_offsets = tl.arange(0, BLOCK_SIZE)
    mask = col_offsets < n_cols

    # Load the entire row (BLOCK_SIZE >= n_cols)
    row = tl.load(row_start_ptr + col_offsets, mask=mask)

    row_max = tl.max(row, axis=0)
    row_min = tl.min(row, axis=0)
    tl.store(output_ptr + row_idx, row_max - row_min)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        n_rows, n_cols = x.shape
        output = torch.empty(n_rows, device=x.device, dtype=x.dtype)
        BLOCK_SIZE = triton.next_power_of_2(n_cols)
        num_warps = 4
        if BLOCK_SIZE >= 2048:
            num_warps = 8
        row_range_kernel[(n_rows,)](
            x, output, n_cols, x.stride(0), BLOCK_SIZE=BLOCK_SIZE, num_warps=num_warps
        )
        return output
