"""Row-wise cosine similarity of two [rows, dim] matrices, F.cosine_similarity(a, b, dim=1, eps): the dot product
and both squared norms accumulated in one pass over column chunks."""
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def cosine_rows_kernel(a_ptr, b_ptr, out_ptr, dim, stride_a, stride_b, eps, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    dot = tl.zeros([BLOCK], tl.float32)
    na = tl.zeros([BLOCK], tl.float32)
    nb = tl.zeros([BLOCK], tl.float32)
    for d0 in range(0, dim, BLOCK):
        d = d0 + offs
        m = d < dim
        a = tl.load(a_ptr + row * stride_a + d, mask=m, other=0.0).to(tl.float32)
        b = tl.load(b_ptr + row * stride_b + d, mask=m, other=0.0).to(tl.float32)
        dot += a * b
        na += a * a
        nb += b * b
    denom = tl.maximum(tl.sqrt(tl.sum(na, axis=0)) * tl.sqrt(tl.sum(nb, axis=0)), eps)
    tl.store(out_ptr + row, tl.sum(dot, axis=0) / denom)


class ModelNew(nn.Module):
    def __init__(self, eps: float = 1e-8):
        super().__init__()
        self.eps = eps

    def forward(self, a, b):
        rows, dim = a.shape
        out = torch.empty(rows, device=a.device, dtype=torch.float32)
        cosine_rows_kernel[(rows,)](a, b, out, dim, a.stride(0), b.stride(0), self.eps, BLOCK=256)
        return out
