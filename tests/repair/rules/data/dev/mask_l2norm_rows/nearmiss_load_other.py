"""Row L2 normalisation: one program per row, the whole row in one power-of-two block."""
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def _l2norm_row(x_ptr, y_ptr, n_cols, row_stride, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + row * row_stride + cols, other=0.0)
    norm = tl.sqrt(tl.sum(x * x, axis=0))
    y = x / tl.maximum(norm, 1e-12)
    tl.store(y_ptr + row * row_stride + cols, y, mask=cols < n_cols)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        x = x.contiguous()
        n_rows, n_cols = x.shape
        y = torch.empty_like(x)
        _l2norm_row[(n_rows,)](x, y, n_cols, x.stride(0), BLOCK=triton.next_power_of_2(n_cols))
        return y
