# Pre-norm block helper: h = x + residual; y = LayerNorm(h); optionally keep h.
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def add_layernorm_kernel(
    X, R, H, Y, W, B, Mean, Rstd,
    stride_row, n_cols, eps,
    HAS_RESIDUAL: tl.constexpr, STORE_H: tl.constexpr, HAS_BIAS: tl.constexpr,
    BLOCK: tl.constexpr,
):
    row = tl.program_id(0)
    X += row * stride_row
    Y += row * stride_row
    R += row * stride_row
    H += row * stride_row

    sum_x = tl.zeros([BLOCK], dtype=tl.float32)
    sum_xx = tl.zeros([BLOCK], dtype=tl.float32)
    for start in range(0, n_cols, BLOCK):
        offs = start + tl.arange(0, BLOCK)
        inb = offs < n_cols
        v = tl.load(X + offs, mask=inb, other=0.0).to(tl.float32)
        if HAS_RESIDUAL:
            v += tl.load(R + offs, mask=inb, other=0.0).to(tl.float32)
            if STORE_H:
                tl.store(H + offs, v.to(H.dtype.element_ty), mask=inb)
        sum_x += v
        sum_xx += v * v

    mu = tl.sum(sum_x, axis=0) / n_cols
    rstd = 1 / tl.sqrt(tl.sum(sum_xx, axis=0) / n_cols - mu * mu + eps)
    tl.store(Rstd + row, rstd)
    tl.store(Mean + row, mu)

    for start in range(0, n_cols, BLOCK):
        offs = start + tl.arange(0, BLOCK)
        inb = offs < n_cols
        v = tl.load(X + offs, mask=inb, other=0.0).to(tl.float32)
        if HAS_RESIDUAL:
            v += tl.load(R + offs, mask=inb, other=0.0).to(tl.float32)
        y = (v - mu) * rstd
        y = y * tl.load(W + offs, mask=inb, other=0.0).to(tl.float32)
        if HAS_BIAS:
            y += tl.load(B + offs, mask=inb, other=0.0).to(tl.float32)
        tl.store(Y + offs, y.to(Y.dtype.element_ty), mask=inb)


def add_layer_norm(x, weight, bias=None, residual=None, eps=1e-5, keep_sum=False):
    shape = x.shape
    x2 = x.reshape(-1, shape[-1]).contiguous()
    rows, cols = x2.shape
    r2 = residual.reshape(rows, cols).contiguous() if residual is not None else x2
    y = torch.empty_like(x2)
    h = torch.empty_like(x2) if (keep_sum and residual is not None) else y
    mean = torch.empty(rows, device=x.device, dtype=torch.float32)
    rstd = torch.empty_like(mean)
    BLOCK = min(4096, triton.next_power_of_2(cols))
    num_warps = 4 if BLOCK <= 1024 else (8 if BLOCK <= 2048 else 16)
    add_layernorm_kernel[(rows,)](
        x2, r2, h, y, weight, bias if bias is not None else weight, mean, rstd,
        x2.stride(0), cols, eps,
        HAS_RESIDUAL=residual is not None, STORE_H=keep_sum and residual is not None,
        HAS_BIAS=bias is not None, BLOCK=BLOCK, num_warps=num_warps,
    )
    y = y.reshape(shape)
    if keep_sum and residual is not None:
        return y, h.reshape(shape)
    return y


class ModelNew(nn.Module):
    def __init__(self, normalized_shape, eps=1e-5, bias=True):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(normalized_shape))
        self.bias = nn.Parameter(torch.zeros(normalized_shape)) if bias else None
        self.eps = eps

    def forward(self, x, residual=None):
        return add_layer_norm(x, self.weight, self.bias, residual, self.eps)
