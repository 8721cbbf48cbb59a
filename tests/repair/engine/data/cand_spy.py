"""Test fixture: correct, but fails loudly if the problem module is visible in its process."""
import sys
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def add_relu_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0)
    y = tl.load(y_ptr + offs, mask=mask, other=0.0)
    tl.store(out_ptr + offs, tl.maximum(x + y, 0.0), mask=mask)


def launch(x, y):
    out = torch.empty_like(x)
    n = x.numel()
    add_relu_kernel[(triton.cdiv(n, 1024),)](x, y, out, n, BLOCK=1024)
    return out


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x, y):
        for name, mod in list(sys.modules.items()):
            if "problem" in name or (getattr(mod, "__file__", None) or "").endswith("_problem.py"):
                raise RuntimeError(f"reference module visible: {name}")
        return launch(x, y)
