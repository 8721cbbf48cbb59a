import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def block_sum_kernel(x_ptr, out_ptr, numel, BLOCK: tl.constexpr):
    block_id = tl.program_id(0)
    idx = block_id * BLOCK + tl.arange(0, BLOCK)
    vals = tl.load(x_ptr + idx, mask=numel - 1 > idx, other=0.0)
    tl.atomic_add(out_ptr, tl.sum(vals, axis=0))


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        x = x.contiguous()
        numel = x.numel()
        BLOCK = 512
        out = torch.zeros((), device=x.device, dtype=torch.float32)
        block_sum_kernel[(triton.cdiv(numel, BLOCK),)](x, out, numel, BLOCK=BLOCK)
        return out
