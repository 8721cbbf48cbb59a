import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def gather_kernel(
    input_ptr, index_ptr, output_ptr,
    num_cols_out,
    BLOCK_SIZE: tl.constexpr,
):
    row = tl.program_id(0)
    col_block = tl.program_id(1)
    cols = col_block * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = cols < num_cols_out

    row_offset = row * num_cols_out
    # index of the element to fetch along dim 1
    idx = tl.load(index_ptr + row_offset + cols, mask=mask, other=0)
    vals = tl.load(input_ptr + row_offset + idx, mask=mask, other=0.0)
    tl.store(output_ptr + row_offset + cols, vals, mask=mask)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x, index):
        x = x.contiguous()
        index = index.contiguous()
        M, K = index.shape
        out = torch.empty((M, K), dtype=x.dtype, device=x.device)
        BLOCK_SIZE = 256
        grid = (M, triton.cdiv(K, BLOCK_SIZE))
        gather_kernel[grid](x, index, out, K, BLOCK_SIZE=BLOCK_SIZE)
        return out
