import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def _row_moments(row_ptr, n_cols, inv_n, eps, BLOCK: tl.constexpr):
    acc_s = tl.zeros([BLOCK], dtype=tl.float32)
    acc_q = tl.zeros([BLOCK], dtype=tl.float32)
    for start in range(0, n_cols, BLOCK):
        offs = start + tl.arange(0, BLOCK)
        v = tl.load(row_ptr + offs, mask=offs < n_cols, other=0.0).to(tl.float32)
        acc_s += v
        acc_q += v * v
    mu = tl.sum(acc_s, axis=0) * inv_n
    var = tl.maximum(tl.sum(acc_q, axis=0) * inv_n - mu * mu, 0.0)
    return mu, tl.math.rsqrt(var + eps)


@triton.jit
def layer_norm_kernel(
    X, Y, W, B, Mean, Rstd,
    stride_row, n_cols, inv_n, eps,
    STORE_STATS: tl.constexpr,
    BLOCK: tl.constexpr,
):
    r = tl.program_id(0).to(tl.int64)
    x_row = X + r * stride_row
    y_row = Y + r * stride_row
    mu, rstd = _row_moments(x_row, n_cols, inv_n, eps, BLOCK)
    if STORE_STATS:
        tl.store(Mean + r, mu)
        tl.store(Rstd + r, rstd)
    for start in range(0, n_cols, BLOCK):
        offs = start + tl.arange(0, BLOCK)
        m = offs < n_cols
        w = tl.load(W + offs, mask=m)
        b = tl.load(B + offs, mask=m)
        v = tl.load(x_row + offs, mask=m, other=0.0).to(tl.float32)
        tl.store(y_row + offs, ((v - mu) * rstd * w + b).to(Y.dtype.element_ty), mask=m)


def layer_norm(x, weight, bias, eps=1e-5, return_stats=False):
    shape = x.shape
    x2 = x.reshape(-1, shape[-1]).contiguous()
    rows, cols = x2.shape
    y = torch.empty_like(x2)
    if return_stats:
        mean = torch.empty(rows, device=x.device, dtype=torch.float32)
        rstd = torch.empty(rows, device=x.device, dtype=torch.float32)
    else:
        mean = rstd = y  # never touched
    BLOCK = min(4096, triton.next_power_of_2(cols))
    num_warps = min(max(BLOCK // 256, 1), 16)
    layer_norm_kernel[(rows,)](
        x2, y, weight, bias, mean, rstd,
        x2.stride(0), cols, 1.0 / cols, eps,
        STORE_STATS=return_stats, BLOCK=BLOCK, num_warps=num_warps,
    )
    y = y.reshape(shape)
    return (y, mean, rstd) if return_stats else y


class ModelNew(nn.Module):
    def __init__(self, normalized_shape, eps=1e-5):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(normalized_shape))
        self.bias = nn.Parameter(torch.zeros(normalized_shape))
        self.eps = eps

    def forward(self, x):
        return layer_norm(x, self.weight, self.bias, self.eps)
