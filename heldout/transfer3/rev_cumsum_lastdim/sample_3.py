import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def suffix_scan_kernel(inp_ptr, out_ptr, n, stride_r, CHUNK: tl.constexpr):
    r = tl.program_id(0)
    lanes = tl.arange(0, CHUNK)
    running = tl.zeros([1], dtype=tl.float32)
    # walk the row chunk by chunk; each chunk's suffix sums are computed locally
    for c0 in range(0, n, CHUNK):
        idx = c0 + lanes
        m = idx < n
        v = tl.load(inp_ptr + r * stride_r + idx, mask=m, other=0.0)
        chunk_total = tl.sum(v, axis=0)
        local_suffix = chunk_total - tl.cumsum(v, axis=0) + v
        tl.store(out_ptr + r * stride_r + idx, local_suffix + running, mask=m)
        running += chunk_total


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        x = x.contiguous()
        n_rows, n = x.shape
        out = torch.empty_like(x)
        suffix_scan_kernel[(n_rows,)](x, out, n, x.stride(0), CHUNK=128, num_warps=4)
        return out
