"""Fused building blocks for the decoder MLP / norm path.

Everything here assumes contiguous row-major 2-D views ([tokens, features]).
"""
import torch
import triton
import triton.language as tl


# --------------------------------------------------------------------------
# RMSNorm
# --------------------------------------------------------------------------
@triton.jit
def _rmsnorm_fwd(X, W, Y, Rstd, stride, N, eps, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    m = cols < N
    x = tl.load(X + row * stride + cols, mask=m, other=0.0).to(tl.float32)
    ms = tl.sum(x * x, axis=0) / N
    rstd = 1.0 / tl.sqrt(ms + eps)
    tl.store(Rstd + row, rstd)
    w = tl.load(W + cols, mask=m, other=1.0).to(tl.float32)
    tl.store(Y + row * stride + cols, (x * rstd * w).to(Y.dtype.element_ty), mask=m)


def rmsnorm(x, weight, eps=1e-6):
    x2 = x.reshape(-1, x.shape[-1]).contiguous()
    M, N = x2.shape
    y = torch.empty_like(x2)
    rstd = torch.empty(M, device=x.device, dtype=torch.float32)
    BLOCK = triton.next_power_of_2(N)
    _rmsnorm_fwd[(M,)](x2, weight, y, rstd, x2.stride(0), N, eps, BLOCK=BLOCK,
                       num_warps=min(16, max(1, BLOCK // 256)))
    return y.view_as(x)


# --------------------------------------------------------------------------
# residual add + RMSNorm (saves one round trip of the hidden state)
# --------------------------------------------------------------------------
@triton.jit
def _add_rmsnorm_fwd(X, R, W, Y, stride, N, eps, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    m = cols < N
    x = tl.load(X + row * stride + cols, mask=m, other=0.0).to(tl.float32)
    r = tl.load(R + row * stride + cols, mask=m, other=0.0).to(tl.float32)
    h = x + r
    tl.store(R + row * stride + cols, h.to(R.dtype.element_ty), mask=m)
    rstd = 1.0 / tl.sqrt(tl.sum(h * h, axis=0) / N + eps)
    w = tl.load(W + cols, mask=m, other=1.0).to(tl.float32)
    tl.store(Y + row * stride + cols, (h * rstd * w).to(Y.dtype.element_ty), mask=m)


def add_rmsnorm(x, residual, weight, eps=1e-6):
    """residual <- residual + x ; returns rmsnorm(residual)."""
    M = x.numel() // x.shape[-1]
    N = x.shape[-1]
    y = torch.empty_like(x)
    BLOCK = triton.next_power_of_2(N)
    _add_rmsnorm_fwd[(M,)](x, residual, weight, y, N, N, eps, BLOCK=BLOCK, num_warps=8)
    return y


# --------------------------------------------------------------------------
# gated activations
# --------------------------------------------------------------------------
@triton.jit
def _gelu_tanh(x):
    return 0.5 * x * (1.0 + tl.extra.cuda.libdevice.tanh(0.7978845608 * (x + 0.044715 * x * x * x)))


@triton.jit
def _act_and_mul(xy_ptr, out_ptr, N, stride_in, stride_out, BLOCK_N: tl.constexpr):
    row = tl.program_id(0)
    col_block = tl.program_id(1)
    cols = col_block * BLOCK_N + tl.arange(0, BLOCK_N)
    valid = cols < N

    gate_ptrs = xy_ptr + row * stride_in + cols
    g = tl.load(gate_ptrs, mask=valid, other=0.0).to(tl.float32)
    u = tl.load(gate_ptrs + N, mask=valid, other=0.0).to(tl.float32)

    act = g * tl.sigmoid(g)
    tl.store(out_ptr + row * stride_out + cols, (act * u).to(out_ptr.dtype.element_ty), mask=valid)


def silu_and_mul(xy, BLOCK_N=1024):
    N = xy.shape[-1] // 2
    xy2 = xy.reshape(-1, 2 * N).contiguous()
    M = xy2.shape[0]
    out = torch.empty((M, N), device=xy.device, dtype=xy.dtype)
    _act_and_mul[(M, triton.cdiv(N, BLOCK_N))](xy2, out, N, xy2.stride(0), out.stride(0),
                                               BLOCK_N=BLOCK_N, num_warps=4)
    return out.view(*xy.shape[:-1], N)


# --------------------------------------------------------------------------
# bias + dropout + residual (training path)
# --------------------------------------------------------------------------
@triton.jit
def _bias_dropout_add(X, B, R, Y, n, N, p, seed, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(X + offs, mask=m, other=0.0).to(tl.float32)
    b = tl.load(B + offs % N, mask=m, other=0.0).to(tl.float32)
    r = tl.load(R + offs, mask=m, other=0.0).to(tl.float32)
    keep = tl.rand(seed, offs) > p
    y = tl.where(keep, (x + b) / (1.0 - p), 0.0) + r
    tl.store(Y + offs, y.to(Y.dtype.element_ty), mask=m)


def bias_dropout_add(x, bias, residual, p, seed, training=True):
    if not training or p == 0.0:
        return x + bias + residual
    y = torch.empty_like(x)
    n = x.numel()
    BLOCK = 1024
    _bias_dropout_add[(triton.cdiv(n, BLOCK),)](x, bias, residual, y, n, x.shape[-1], p, seed,
                                                BLOCK=BLOCK)
    return y


class FusedMLP(torch.nn.Module):
    def __init__(self, dim, hidden, eps=1e-6):
        super().__init__()
        self.norm_w = torch.nn.Parameter(torch.ones(dim))
        self.w_in = torch.nn.Linear(dim, 2 * hidden, bias=False)
        self.w_out = torch.nn.Linear(hidden, dim, bias=False)
        self.eps = eps

    def forward(self, x):
        h = rmsnorm(x, self.norm_w, self.eps)
        return x + self.w_out(silu_and_mul(self.w_in(h)))
