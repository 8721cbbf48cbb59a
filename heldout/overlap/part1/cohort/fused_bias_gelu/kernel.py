"""Bias add fused with tanh-approximate GELU.

y = gelu_tanh(x + b), with b broadcast over the last dimension of x.
"""
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.autotune(
    configs=[
        triton.Config({"BLOCK_N": 256}, num_warps=2),
        triton.Config({"BLOCK_N": 512}, num_warps=4),
        triton.Config({"BLOCK_N": 1024}, num_warps=4),
        triton.Config({"BLOCK_N": 2048}, num_warps=8),
    ],
    key=["N"],
)
@triton.jit
def bias_gelu_fwd_kernel(
    x_ptr, b_ptr, y_ptr,
    M, N,
    stride_xm, stride_ym,
    BLOCK_N: tl.constexpr,
):
    row = tl.program_id(0)
    col_block = tl.program_id(1)

    cols = col_block * BLOCK_N + tl.arange(0, BLOCK_N)
    mask = cols < N

    x = tl.load(x_ptr + row * stride_xm + cols, mask=mask, other=0.0).to(tl.float32)
    b = tl.load(b_ptr + cols, mask=mask, other=0.0).to(tl.float32)
    h = x + b

    # 0.5 * h * (1 + tanh(sqrt(2/pi) * (h + 0.044715 h^3)))
    inner = 0.7978845608028654 * (h + 0.044715 * h * h * h)
    # tanh(z) = 1 - 2 / (exp(2z) + 1); stable for large |z| in fp32
    t = 1.0 - 2.0 / (tl.exp(2.0 * inner) + 1.0)
    y = 0.5 * h * (1.0 + t)

    tl.store(y_ptr + row * stride_ym + cols, y.to(y_ptr.dtype.element_ty), mask=mask)


def fused_bias_gelu(x: torch.Tensor, bias: torch.Tensor) -> torch.Tensor:
    assert x.shape[-1] == bias.shape[0], "bias must match the last dim"
    orig_shape = x.shape
    x2 = x.reshape(-1, orig_shape[-1]).contiguous()
    M, N = x2.shape
    y = torch.empty_like(x2)
    grid = lambda meta: (M, triton.cdiv(N, meta["BLOCK_N"]))
    bias_gelu_fwd_kernel[grid](x2, bias, y, M, N, x2.stride(0), y.stride(0))
    return y.reshape(orig_shape)


class ModelNew(nn.Module):
    def __init__(self, hidden_size: int):
        super().__init__()
        self.bias = nn.Parameter(torch.zeros(hidden_size))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return fused_bias_gelu(x, self.bias)
