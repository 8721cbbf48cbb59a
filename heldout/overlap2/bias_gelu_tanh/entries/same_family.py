"""Exact (erf) GELU of x + bias, as nn.GELU() computes it, elementwise over a flat view."""
import torch
import triton
import triton.language as tl


@triton.jit
def gelu_erf_bias_kernel(x_ptr, bias_ptr, out_ptr, numel, features, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(axis=0)
    offsets = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < numel
    x = tl.load(x_ptr + offsets, mask=mask, other=0.0)
    x = x + tl.load(bias_ptr + offsets % features, mask=mask, other=0.0)
    out = x * 0.5 * (1.0 + tl.erf(x * 0.7071067811865476))
    tl.store(out_ptr + offsets, out, mask=mask)


def gelu_bias(x: torch.Tensor, bias: torch.Tensor) -> torch.Tensor:
    out = torch.empty_like(x)
    n = x.numel()
    gelu_erf_bias_kernel[(triton.cdiv(n, 2048),)](x, bias, out, n, x.shape[-1], BLOCK_SIZE=2048)
    return out
