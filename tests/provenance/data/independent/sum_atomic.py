"""Full-tensor sum: each program reduces one block and atomically adds its partial sum."""
import torch
import triton
import triton.language as tl


@triton.jit
def block_sum_kernel(inp_ptr, out_ptr, numel, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    vals = tl.load(inp_ptr + offs, mask=offs < numel, other=0.0)
    partial = tl.sum(vals.to(tl.float32), axis=0)
    tl.atomic_add(out_ptr, partial)


def total(x):
    out = torch.zeros(1, device=x.device, dtype=torch.float32)
    n = x.numel()
    block_sum_kernel[(triton.cdiv(n, 1024),)](x, out, n, BLOCK=1024)
    return out
