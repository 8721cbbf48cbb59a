"""Gated RMSNorm (as in Mamba-2 blocks): y = x / rms(x) * weight * silu(gate), one program per row, fp32 statistics."""
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def gated_rmsnorm_kernel(x_ptr, z_ptr, w_ptr, y_ptr, n_cols, stride_x, stride_z, stride_y, eps,
                         BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    m = cols < n_cols
    x = tl.load(x_ptr + row * stride_x + cols, mask=m, other=0.0).to(tl.float32)
    z = tl.load(z_ptr + row * stride_z + cols, mask=m, other=0.0).to(tl.float32)
    w = tl.load(w_ptr + cols, mask=m, other=0.0).to(tl.float32)
    ms = tl.sum(x * x, axis=0) / n_cols
    rstd = 1.0 / tl.sqrt(ms + eps)
    gate = z * tl.sigmoid(z)
    y = x * rstd * w * gate
    tl.store(y_ptr + row * stride_y + cols, y.to(y_ptr.dtype.element_ty), mask=m)


class ModelNew(nn.Module):
    def __init__(self, hidden: int, eps: float = 1e-6):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(hidden))
        self.eps = eps

    def forward(self, x, z):
        shape = x.shape
        x2, z2 = x.reshape(-1, shape[-1]).contiguous(), z.reshape(-1, shape[-1]).contiguous()
        y = torch.empty_like(x2)
        BLOCK = triton.next_power_of_2(shape[-1])
        gated_rmsnorm_kernel[(x2.shape[0],)](x2, z2, self.weight, y, shape[-1], x2.stride(0), z2.stride(0),
                                             y.stride(0), self.eps, BLOCK=BLOCK, num_warps=4)
        return y.reshape(shape)
