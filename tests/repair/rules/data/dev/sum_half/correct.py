import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def sum_rows_kernel(src, dst, ncols, stride, CHUNK: tl.constexpr):
    pid = tl.program_id(0)
    acc = tl.zeros([CHUNK], dtype=tl.float32)
    for off in range(0, ncols, CHUNK):
        k = off + tl.arange(0, CHUNK)
        acc += tl.load(src + pid * stride + k, mask=k < ncols, other=0.0).to(tl.float32)
    tl.store(dst + pid, tl.sum(acc, axis=0).to(tl.float32))


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        x = x.contiguous()
        out = torch.empty(x.shape[0], device=x.device, dtype=torch.float32)
        sum_rows_kernel[(x.shape[0],)](x, out, x.shape[1], x.stride(0), CHUNK=64)
        return out
