"""Inverted dropout with a Philox counter-based mask: y = x * (u > p) / (1 - p)."""
import torch
import triton
import triton.language as tl


@triton.jit
def dropout_kernel(x_ptr, y_ptr, n, p, seed, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    keep = tl.rand(seed, offs) > p
    tl.store(y_ptr + offs, tl.where(keep, x / (1.0 - p), 0.0), mask=mask)


def dropout(x: torch.Tensor, p: float = 0.1, seed: int = 0) -> torch.Tensor:
    y = torch.empty_like(x)
    n = x.numel()
    dropout_kernel[(triton.cdiv(n, 1024),)](x, y, n, p, seed, BLOCK=1024)
    return y
