"""RMSNorm: y = x / sqrt(mean(x^2) + eps) * weight, one program per row, the row in one block."""
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def rmsnorm_kernel(x_ptr, w_ptr, out_ptr, n_cols, row_stride, eps, BLOCK: tl.constexpr):
    row_id = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    in_bounds = cols < n_cols
    x = tl.load(x_ptr + row_id * row_stride + cols, mask=in_bounds, other=0.0).to(tl.float32)
    sq_sum = tl.sum(x * x, axis=0)
    inv_rms = tl.rsqrt(sq_sum / n_cols + eps)
    w = tl.load(w_ptr + cols, mask=in_bounds, other=0.0)
    y = x * inv_rms * w
    tl.store(out_ptr + row_id * row_stride + cols, y, mask=in_bounds)


class ModelNew(nn.Module):
    def __init__(self, dim, eps=1e-6):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(dim))

    def forward(self, x):
        shape = x.shape
        x = x.reshape(-1, shape[-1]).contiguous()
        out = torch.empty_like(x)
        rows, cols = x.shape
        rmsnorm_kernel[(rows,)](x, self.weight, out, cols, x.stride(0), self.eps,
                                BLOCK=triton.next_power_of_2(cols))
        return out.reshape(shape)
