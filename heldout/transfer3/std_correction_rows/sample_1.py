import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def std_kernel(x_ptr, y_ptr, stride_x, n_cols, BLOCK_SIZE: tl.constexpr):
    row_id = tl.program_id(0)
    offsets = tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_cols

    x = tl.load(x_ptr + row_id * stride_x + offsets, mask=mask, other=0.0)

    # mean of the row
    mean = tl.sum(x, axis=0) / n_cols
    # variance of the row
    diff = tl.where(mask, x - mean, 0.0)
    var = tl.sum(diff * diff, axis=0) / n_cols

    tl.store(y_ptr + row_id, tl.sqrt(var))


class ModelNew(nn.Module):
    def __init__(self, correction=1):
        super().__init__()
        self.correction = correction

    def forward(self, x):
        x = x.contiguous()
        n_rows, n_cols = x.shape
        y = torch.empty(n_rows, dtype=x.dtype, device=x.device)
        BLOCK_SIZE = triton.next_power_of_2(n_cols)
        std_kernel[(n_rows,)](x, y, x.stride(0), n_cols, BLOCK_SIZE=BLOCK_SIZE)
        return y
