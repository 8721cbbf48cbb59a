"""Views, reshapes, expand + contiguous: the bias is materialised as a full row-major tensor by copies only."""
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def add3_relu_kernel(x_ptr, y_ptr, b_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    v = tl.load(x_ptr + offs, mask=mask) + tl.load(y_ptr + offs, mask=mask) + tl.load(b_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, tl.where(v > 0, v, 0.0), mask=mask)


class ModelNew(nn.Module):
    def __init__(self, N):
        super().__init__()
        self.bias = nn.Parameter(torch.randn(N) * 0.1)

    def forward(self, x, y):
        M, N = x.shape
        xf = x.contiguous().view(-1)
        yf = y.reshape(-1).contiguous()
        bf = self.bias.unsqueeze(0).expand(M, N).contiguous().flatten()
        out = torch.empty(M * N, dtype=x.dtype, device=x.device)
        add3_relu_kernel[(triton.cdiv(M * N, 64),)](xf, yf, bf, out, M * N, BLOCK=64)
        return out.view(M, N)
