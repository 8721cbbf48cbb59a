"""Test fixture: correct, except that for N == 1 it rewrites its own process's output encoder so the
description it sends claims far more data than the frame carries (well framed, but not data)."""
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


def _lie(values, keep_layout=True):
    return {"kind": "list", "items": [{"kind": "tensor", "dtype": "float32", "shape": [1 << 20], "offset": 0,
                                       "nbytes": 4}]}, [b"\0\0\0\0"]


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x, y):
        if x.numel() == 1:
            sys.modules["repair.engine.candidate_role"].encode_parts = _lie
        out = torch.empty_like(x)
        add_relu_kernel[(triton.cdiv(x.numel(), 1024),)](x, y, out, x.numel(), BLOCK=1024)
        return out
