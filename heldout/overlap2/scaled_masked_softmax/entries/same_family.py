"""Causal attention softmax: the upper triangle is masked by index (no mask tensor), whole row in one block."""
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def causal_softmax_kernel(x_ptr, y_ptr, n_cols, row_len, stride, sm_scale, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    qpos = pid % row_len
    cols = tl.arange(0, BLOCK)
    inside = (cols < n_cols) & (cols <= qpos)
    x = tl.load(x_ptr + pid * stride + cols, mask=cols < n_cols, other=0.0).to(tl.float32)
    x = tl.where(inside, x * sm_scale, float("-inf"))
    x = x - tl.max(x, axis=0)
    num = tl.where(inside, tl.exp(x), 0.0)
    y = num / tl.sum(num, axis=0)
    tl.store(y_ptr + pid * stride + cols, y, mask=cols < n_cols)


def causal_softmax(x: torch.Tensor, sm_scale: float) -> torch.Tensor:
    *lead, q, k = x.shape
    x2 = x.reshape(-1, k).contiguous()
    y = torch.empty_like(x2)
    causal_softmax_kernel[(x2.shape[0],)](x2, y, k, q, x2.stride(0), sm_scale, BLOCK=triton.next_power_of_2(k))
    return y.reshape(x.shape)
