import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def scale_rows_kernel(x_ptr, s_ptr, y_ptr, n_cols, sx_row, sx_col, sy_row, BLOCK: tl.constexpr):
    r = tl.program_id(0)
    c = tl.arange(0, BLOCK)
    ok = c < n_cols
    x = tl.load(x_ptr + r * sx_row + c * n_cols, mask=ok)
    s = tl.load(s_ptr + r)
    tl.store(y_ptr + r * sy_row + c, x * s, mask=ok)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x, s):
        M, N = x.shape
        y = torch.empty((M, N), device=x.device, dtype=x.dtype)
        scale_rows_kernel[(M,)](x, s, y, N, x.stride(0), x.stride(1), y.stride(0), BLOCK=triton.next_power_of_2(N))
        return y
