import torch
import triton
import triton.language as tl


@triton.jit
def _add_combine(a, b):
    return a + b


@triton.jit
def cumsum_rows_kernel(x_ptr, y_ptr, n_cols, stride_x, stride_y,
                       REVERSE: tl.constexpr, BLOCK: tl.constexpr):
    """Inclusive prefix sum along each row, chunk by chunk with a running carry."""
    row = tl.program_id(0)
    carry = 0.0
    for c0 in range(0, n_cols, BLOCK):
        idx = c0 + tl.arange(0, BLOCK)
        if REVERSE:
            cols = n_cols - 1 - idx
        else:
            cols = idx
        valid = idx < n_cols
        x = tl.load(x_ptr + row * stride_x + cols, mask=valid, other=0.0).to(tl.float32)
        s = tl.associative_scan(x, 0, _add_combine) + carry
        tl.store(y_ptr + row * stride_y + cols, s.to(y_ptr.dtype.element_ty), mask=valid)
        carry = tl.sum(tl.where(idx == tl.minimum(c0 + BLOCK, n_cols) - 1, s, 0.0), axis=0)


def cumsum_lastdim(x, reverse=False):
    shape = x.shape
    x2 = x.reshape(-1, shape[-1]).contiguous()
    R, N = x2.shape
    y = torch.empty_like(x2)
    BLOCK = min(2048, triton.next_power_of_2(N))
    cumsum_rows_kernel[(R,)](x2, y, N, x2.stride(0), y.stride(0),
                             REVERSE=reverse, BLOCK=BLOCK, num_warps=4)
    return y.view(shape)


class ModelNew(torch.nn.Module):
    def __init__(self, reverse=False):
        super().__init__()
        self.reverse = reverse

    def forward(self, x):
        return cumsum_lastdim(x, self.reverse)
