"""Log messages, warnings and error strings that name torch ops, and an f-string with the op name."""
import logging
import warnings

import torch
import torch.nn as nn
import triton
import triton.language as tl

log = logging.getLogger(__name__)
OP_NAME = "relu"


@triton.jit
def add_bias_relu_kernel(x_ptr, y_ptr, b_ptr, out_ptr, n, N, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    v = tl.load(x_ptr + offs, mask=mask) + tl.load(y_ptr + offs, mask=mask) + tl.load(b_ptr + offs % N, mask=mask)
    tl.store(out_ptr + offs, tl.maximum(v, 0.0), mask=mask)


class ModelNew(nn.Module):
    def __init__(self, N):
        super().__init__()
        self.bias = nn.Parameter(torch.randn(N) * 0.1)
        log.debug("replacing torch.%s(x + y + bias) with a Triton kernel", OP_NAME)

    def forward(self, x, y):
        if not x.is_contiguous():
            warnings.warn("non-contiguous input: copying, unlike torch.relu which works on strides")
            x = x.contiguous()
        y = y.contiguous()
        out = torch.empty_like(x)
        n = x.numel()
        label = f"torch.{OP_NAME} replacement, {n} elements"
        log.debug(label)
        add_bias_relu_kernel[(triton.cdiv(n, 64),)](x, y, self.bias, out, n, x.shape[1], BLOCK=64)
        return out
