"""Every allocation flavour a wrapper uses: empty, zeros, full, new_empty, empty_strided."""
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def add_bias_relu_2d(x_ptr, y_ptr, b_ptr, out_ptr, M, N, sxm, sym, som, BLOCK_N: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK_N)
    mask = cols < N
    x = tl.load(x_ptr + row * sxm + cols, mask=mask, other=0.0)
    y = tl.load(y_ptr + row * sym + cols, mask=mask, other=0.0)
    b = tl.load(b_ptr + cols, mask=mask, other=0.0)
    tl.store(out_ptr + row * som + cols, tl.maximum(x + y + b, 0.0), mask=mask)


class ModelNew(nn.Module):
    def __init__(self, N):
        super().__init__()
        self.bias = nn.Parameter(torch.randn(N) * 0.1)
        self.register_buffer("scratch", torch.zeros(1))

    def forward(self, x, y):
        M, N = x.shape
        _unused = torch.full((1,), 0.0, device=x.device)
        _spare = x.new_empty((0,))
        _zeros = torch.zeros(0, device=x.device, dtype=x.dtype)
        out = torch.empty_strided((M, N), (N, 1), dtype=x.dtype, device=x.device)
        BLOCK_N = triton.next_power_of_2(N)
        add_bias_relu_2d[(M,)](x, y, self.bias, out, M, N, x.stride(0), y.stride(0), out.stride(0), BLOCK_N=BLOCK_N)
        return out
