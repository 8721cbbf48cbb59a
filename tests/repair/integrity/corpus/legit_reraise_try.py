"""try/except that only re-raises with a clearer message, and an optional import guarded at module level."""
import torch
import torch.nn as nn
import triton
import triton.language as tl

try:
    from triton.language.extra import libdevice  # noqa: F401  (optional, unused here)
except ImportError:
    libdevice = None


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
        x, y = x.contiguous(), y.contiguous()
        out = torch.empty_like(x)
        n = x.numel()
        try:
            add_bias_relu_kernel[(triton.cdiv(n, 64),)](x, y, self.bias, out, n, x.shape[1], BLOCK=64)
        except Exception as e:
            if "out of resources" in str(e):
                raise RuntimeError(f"add_bias_relu_kernel: block too large ({e})") from e
            raise
        return out
