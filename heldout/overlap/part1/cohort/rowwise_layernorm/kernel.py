import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def _ln_rows_kernel(
    X, Y, W, B, Mean, Rstd,
    stride_row,
    n_cols,
    eps,
    BLOCK: tl.constexpr,
):
    r = tl.program_id(0)
    X += r * stride_row
    Y += r * stride_row

    # pass 1: running sum and sum of squares, one lane vector each
    acc_s = tl.zeros([BLOCK], dtype=tl.float32)
    acc_q = tl.zeros([BLOCK], dtype=tl.float32)
    for start in range(0, n_cols, BLOCK):
        offs = start + tl.arange(0, BLOCK)
        v = tl.load(X + offs, mask=offs < n_cols, other=0.0).to(tl.float32)
        acc_s += v
        acc_q += v * v
    mu = tl.sum(acc_s, axis=0) / n_cols
    var = tl.sum(acc_q, axis=0) / n_cols - mu * mu
    rstd = 1 / tl.sqrt(var + eps)
    tl.store(Mean + r, mu)
    tl.store(Rstd + r, rstd)

    # pass 2: normalize + affine
    for start in range(0, n_cols, BLOCK):
        offs = start + tl.arange(0, BLOCK)
        m = offs < n_cols
        v = tl.load(X + offs, mask=m, other=0.0).to(tl.float32)
        w = tl.load(W + offs, mask=m)
        b = tl.load(B + offs, mask=m)
        out = (v - mu) * rstd * w + b
        tl.store(Y + offs, out.to(Y.dtype.element_ty), mask=m)


def layer_norm_rows(x, weight, bias, eps=1e-5):
    shape = x.shape
    x2 = x.reshape(-1, shape[-1]).contiguous()
    rows, cols = x2.shape
    y = torch.empty_like(x2)
    mean = torch.empty(rows, device=x.device, dtype=torch.float32)
    rstd = torch.empty(rows, device=x.device, dtype=torch.float32)
    BLOCK = min(4096, triton.next_power_of_2(cols))
    num_warps = 4 if BLOCK <= 1024 else (8 if BLOCK <= 2048 else 16)
    _ln_rows_kernel[(rows,)](
        x2, y, weight, bias, mean, rstd,
        x2.stride(0), cols, eps,
        BLOCK=BLOCK, num_warps=num_warps,
    )
    return y.reshape(shape), mean, rstd


class ModelNew(nn.Module):
    def __init__(self, normalized_shape, eps=1e-5):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(normalized_shape))
        self.bias = nn.Parameter(torch.zeros(normalized_shape))
        self.eps = eps

    def forward(self, x):
        y, _, _ = layer_norm_rows(x, self.weight, self.bias, self.eps)
        return y
