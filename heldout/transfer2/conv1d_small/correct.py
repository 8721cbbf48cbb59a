"""Direct 1-D convolution: one program per (batch, out-channel, output block); loops over in-channels and taps."""
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def conv1d_direct_kernel(x_ptr, w_ptr, bias_ptr, y_ptr, Cin, L, Cout, L_out, stride, padding,
                         KSIZE: tl.constexpr, BLOCK_L: tl.constexpr):
    pid_bc = tl.program_id(0)
    pid_l = tl.program_id(1)
    b = pid_bc // Cout
    co = pid_bc % Cout
    lo = pid_l * BLOCK_L + tl.arange(0, BLOCK_L)
    lo_mask = lo < L_out
    acc = tl.zeros([BLOCK_L], dtype=tl.float32)
    for ci in range(0, Cin):
        x_row = x_ptr + (b * Cin + ci) * L
        for k in range(0, KSIZE):
            pos = lo * stride - padding + k
            ok = lo_mask & (pos >= 0) & (pos < L)
            xv = tl.load(x_row + pos, mask=ok, other=0.0)
            wv = tl.load(w_ptr + (co * Cin + ci) * KSIZE + k)
            acc += xv * wv
    acc += tl.load(bias_ptr + co)
    tl.store(y_ptr + (b * Cout + co) * L_out + lo, acc, mask=lo_mask)


class ModelNew(nn.Module):
    def __init__(self, Cin, Cout, K, stride=1, padding=0):
        super().__init__()
        self.stride = stride
        self.padding = padding
        self.weight = nn.Parameter(torch.randn(Cout, Cin, K) * 0.3)
        self.bias = nn.Parameter(torch.randn(Cout))

    def forward(self, x):
        x = x.contiguous()
        B, Cin, L = x.shape
        Cout, _, K = self.weight.shape
        L_out = (L + 2 * self.padding - K) // self.stride + 1
        y = torch.empty((B, Cout, L_out), dtype=x.dtype, device=x.device)
        BLOCK_L = 64
        grid = (B * Cout, triton.cdiv(L_out, BLOCK_L))
        conv1d_direct_kernel[grid](x, self.weight, self.bias, y, Cin, L, Cout, L_out, self.stride, self.padding,
                                   KSIZE=K, BLOCK_L=BLOCK_L)
        return y
