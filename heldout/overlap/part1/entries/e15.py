"""Exact (erf) GELU with bias, forward and backward.

Works on the flattened tensor; the bias index is recovered from the flat
offset.  The backward kernel also reduces the bias gradient per program with
atomics, so the whole thing can sit in an autograd.Function.
"""
import torch
import triton
import triton.language as tl

INV_SQRT2 = 0.7071067811865476
INV_SQRT_2PI = 0.3989422804014327


@triton.jit
def _gelu_erf_fwd(X, Bias, Out, total, hidden, BLOCK: tl.constexpr):
    i = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    live = i < total
    z = tl.load(X + i, mask=live, other=0.0).to(tl.float32) \
        + tl.load(Bias + (i % hidden), mask=live, other=0.0).to(tl.float32)
    cdf = 0.5 * (1.0 + tl.math.erf(z * 0.7071067811865476))
    tl.store(Out + i, (z * cdf).to(Out.dtype.element_ty), mask=live)


@triton.jit
def _gelu_erf_bwd(X, Bias, dOut, dX, dBias, total, hidden, BLOCK: tl.constexpr):
    i = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    live = i < total
    j = i % hidden
    z = tl.load(X + i, mask=live, other=0.0).to(tl.float32) \
        + tl.load(Bias + j, mask=live, other=0.0).to(tl.float32)
    g = tl.load(dOut + i, mask=live, other=0.0).to(tl.float32)
    cdf = 0.5 * (1.0 + tl.math.erf(z * 0.7071067811865476))
    pdf = 0.3989422804014327 * tl.exp(-0.5 * z * z)
    dz = g * (cdf + z * pdf)
    tl.store(dX + i, dz.to(dX.dtype.element_ty), mask=live)
    tl.atomic_add(dBias + j, dz, mask=live)


class _BiasGeluErf(torch.autograd.Function):
    BLOCK = 1024

    @staticmethod
    def forward(ctx, x, bias):
        x = x.contiguous()
        out = torch.empty_like(x)
        total, hidden = x.numel(), bias.numel()
        grid = (triton.cdiv(total, _BiasGeluErf.BLOCK),)
        _gelu_erf_fwd[grid](x, bias, out, total, hidden, BLOCK=_BiasGeluErf.BLOCK)
        ctx.save_for_backward(x, bias)
        return out

    @staticmethod
    def backward(ctx, grad_out):
        x, bias = ctx.saved_tensors
        grad_out = grad_out.contiguous()
        dx = torch.empty_like(x)
        dbias = torch.zeros(bias.shape, device=bias.device, dtype=torch.float32)
        total, hidden = x.numel(), bias.numel()
        grid = (triton.cdiv(total, _BiasGeluErf.BLOCK),)
        _gelu_erf_bwd[grid](x, bias, grad_out, dx, dbias, total, hidden, BLOCK=_BiasGeluErf.BLOCK)
        return dx, dbias.to(bias.dtype)


def bias_gelu_exact(x, bias):
    return _BiasGeluErf.apply(x, bias)
