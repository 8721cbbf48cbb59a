"""L2-normalise rows: one program per row, the whole row in one block, sum of squares in fp32."""
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def l2_normalize_kernel(x_ptr, out_ptr, N, stride_xm, stride_om, eps, BLOCK_N: tl.constexpr):
    pid_m = tl.program_id(0)
    offs_n = tl.arange(0, BLOCK_N)
    mask = offs_n < N
    x = tl.load(x_ptr + pid_m * stride_xm + offs_n, mask=mask, other=0.0).to(tl.float32)
    sq_sum = tl.sum(x * x, axis=0)
    denom = tl.maximum(tl.sqrt(sq_sum), eps)
    tl.store(out_ptr + pid_m * stride_om + offs_n, x / denom, mask=mask)


class ModelNew(nn.Module):
    def __init__(self, eps=1e-12):
        super().__init__()
        self.eps = eps

    def forward(self, x):
        x = x.contiguous()
        M, N = x.shape
        out = torch.empty_like(x)
        l2_normalize_kernel[(M,)](x, out, N, x.stride(0), out.stride(0), self.eps,
                                  BLOCK_N=triton.next_power_of_2(N))
        return out
