"""Device, dtype, stride, contiguity and pointer-alignment queries steer the launch."""
import torch
import torch.nn as nn
import triton
import triton.language as tl


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

    def forward(self, x, y):
        assert x.dtype == torch.float32 and x.dtype == y.dtype, "fp32 only"
        assert x.device == y.device
        if not x.is_contiguous() or x.stride(-1) != 1:
            x = x.contiguous()
        if not y.is_contiguous():
            y = y.contiguous()
        aligned = x.data_ptr() % 16 == 0 and y.data_ptr() % 16 == 0
        on_gpu = x.is_cuda and torch.cuda.is_available()
        BLOCK = 128 if on_gpu and aligned else 64
        out = torch.empty_like(x)
        n = x.numel()
        add_bias_relu_kernel[(triton.cdiv(n, BLOCK),)](x, y, self.bias, out, n, x.size(1), BLOCK=BLOCK)
        return out
