"""Pointwise helpers used by the MLP blocks.

Everything here is memory bound; kernels operate on a flattened view and the
wrappers take care of reshaping and dtype handling.
"""
import math

import torch
import triton
import triton.language as tl


def _pick_block(n: int) -> int:
    if n >= 1 << 20:
        return 4096
    if n >= 1 << 16:
        return 2048
    return 1024


@triton.jit
def _scale_cast_kernel(src, dst, scale, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    v = tl.load(src + offs, mask=m, other=0.0).to(tl.float32)
    tl.store(dst + offs, (v * scale).to(dst.dtype.element_ty), mask=m)


@triton.jit
def _swiglu_kernel(gate, up, out, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    g = tl.load(gate + offs, mask=m, other=0.0).to(tl.float32)
    u = tl.load(up + offs, mask=m, other=0.0).to(tl.float32)
    y = g * tl.sigmoid(g) * u
    tl.store(out + offs, y.to(out.dtype.element_ty), mask=m)


@triton.jit
def _clamp_kernel(src, dst, lo, hi, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    v = tl.load(src + offs, mask=m)
    v = tl.minimum(tl.maximum(v, lo), hi)
    tl.store(dst + offs, v, mask=m)


@triton.jit
def _bias_gelu_rows(x_ptr, b_ptr, y_ptr, N, sx, sy, BLOCK_N: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N)
    mask = cols < N
    h = tl.load(x_ptr + row * sx + cols, mask=mask, other=0.0).to(tl.float32)
    h += tl.load(b_ptr + cols, mask=mask, other=0.0).to(tl.float32)
    inner = 0.7978845608028654 * (h + 0.044715 * h * h * h)
    t = 1.0 - 2.0 / (tl.exp(2.0 * inner) + 1.0)
    y = 0.5 * h * (1.0 + t)
    tl.store(y_ptr + row * sy + cols, y.to(y_ptr.dtype.element_ty), mask=mask)


@triton.jit
def _squared_relu_kernel(src, dst, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    v = tl.load(src + offs, mask=m, other=0.0).to(tl.float32)
    v = tl.maximum(v, 0.0)
    tl.store(dst + offs, (v * v).to(dst.dtype.element_ty), mask=m)


def scale_cast(x: torch.Tensor, scale: float, dtype=torch.bfloat16) -> torch.Tensor:
    x = x.contiguous()
    out = torch.empty(x.shape, device=x.device, dtype=dtype)
    n = x.numel()
    B = _pick_block(n)
    _scale_cast_kernel[(triton.cdiv(n, B),)](x, out, scale, n, BLOCK=B)
    return out


def swiglu(gate: torch.Tensor, up: torch.Tensor) -> torch.Tensor:
    assert gate.shape == up.shape
    gate, up = gate.contiguous(), up.contiguous()
    out = torch.empty_like(gate)
    n = gate.numel()
    B = _pick_block(n)
    _swiglu_kernel[(triton.cdiv(n, B),)](gate, up, out, n, BLOCK=B)
    return out


def swiglu_packed(x: torch.Tensor) -> torch.Tensor:
    gate, up = x.chunk(2, dim=-1)
    return swiglu(gate, up)


def clamp_(x: torch.Tensor, lo: float, hi: float) -> torch.Tensor:
    assert x.is_contiguous()
    n = x.numel()
    B = _pick_block(n)
    _clamp_kernel[(triton.cdiv(n, B),)](x, x, lo, hi, n, BLOCK=B)
    return x


def bias_gelu(x: torch.Tensor, bias: torch.Tensor) -> torch.Tensor:
    shape = x.shape
    x2 = x.reshape(-1, shape[-1]).contiguous()
    M, N = x2.shape
    y = torch.empty_like(x2)
    BLOCK_N = min(1024, triton.next_power_of_2(N))
    _bias_gelu_rows[(M, triton.cdiv(N, BLOCK_N))](
        x2, bias, y, N, x2.stride(0), y.stride(0), BLOCK_N=BLOCK_N, num_warps=4
    )
    return y.reshape(shape)


def squared_relu(x: torch.Tensor) -> torch.Tensor:
    x = x.contiguous()
    out = torch.empty_like(x)
    n = x.numel()
    B = _pick_block(n)
    _squared_relu_kernel[(triton.cdiv(n, B),)](x, out, n, BLOCK=B)
    return out


ACTIVATIONS = {
    "swiglu": swiglu_packed,
    "relu2": squared_relu,
}


def mlp_activation(name: str, x: torch.Tensor, bias: torch.Tensor = None) -> torch.Tensor:
    if name == "gelu_tanh":
        if bias is None:
            bias = torch.zeros(x.shape[-1], device=x.device, dtype=x.dtype)
        return bias_gelu(x, bias)
    if bias is not None:
        x = x + bias
    try:
        fn = ACTIVATIONS[name]
    except KeyError:
        raise ValueError(f"unknown activation {name!r}") from None
    return fn(x)


def init_scale(fan_in: int) -> float:
    return 1.0 / math.sqrt(fan_in)
