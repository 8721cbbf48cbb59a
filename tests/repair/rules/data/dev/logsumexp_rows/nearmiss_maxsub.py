import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def _lse_kernel(X, Out, stride_row, n_cols, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(axis=0)
    col = tl.arange(0, BLOCK_SIZE)
    valid = col < n_cols
    row = tl.load(X + pid * stride_row + col, mask=valid, other=float("-inf")).to(tl.float32)
    tl.store(Out + pid, tl.log(tl.sum(tl.exp(row), axis=0)))


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        x = x.contiguous()
        M, N = x.shape
        y = torch.empty((M,), dtype=x.dtype, device=x.device)
        _lse_kernel[(M,)](x, y, x.stride(0), N, BLOCK_SIZE=triton.next_power_of_2(N))
        return y
