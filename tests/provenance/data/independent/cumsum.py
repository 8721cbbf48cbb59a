"""Inclusive prefix sum along rows that fit in one block."""
import triton
import triton.language as tl


@triton.jit
def cumsum_kernel(x_ptr, y_ptr, n_cols, stride, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + row * stride + cols, mask=cols < n_cols, other=0.0)
    y = tl.cumsum(x, axis=0)
    tl.store(y_ptr + row * stride + cols, y, mask=cols < n_cols)
