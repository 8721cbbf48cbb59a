import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def add_bias_clamp(x_ptr, bias_ptr, out_ptr, numel, ncols, min_val, max_val, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    idx = pid * BLOCK + tl.arange(0, BLOCK)
    valid = idx < numel
    x = tl.load(x_ptr + idx, mask=valid, other=0.0)
    bias = tl.load(bias_ptr + (idx % ncols), mask=valid, other=0.0)
    out = tl.clamp(x + bias, min_val, max_val)
    tl.store(out_ptr + idx, out, mask=valid)


class ModelNew(nn.Module):
    def __init__(self, min_val=-1.0, max_val=1.0):
        super().__init__()
        self.min_val = min_val
        self.max_val = max_val

    def forward(self, x, bias):
        # Output has the same shape and dtype as x.
        out = torch.empty_like(x)
        numel = x.numel()
        BLOCK = 512
        num_warps = 4
        add_bias_clamp[(triton.cdiv(numel, BLOCK),)](
            x, bias, out, numel, x.size(1), self.min_val, self.max_val, BLOCK=BLOCK, num_warps=num_warps
        )
        return out
