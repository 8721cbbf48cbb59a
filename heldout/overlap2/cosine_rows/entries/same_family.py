"""Pairwise squared Euclidean distance of matching rows, ||a - b||^2, and its square root, one block per row."""
import torch
import triton
import triton.language as tl


@triton.jit
def row_l2_dist(a_ptr, b_ptr, d2_ptr, d_ptr, dim, stride, BLOCK: tl.constexpr):
    r = tl.program_id(0)
    c = tl.arange(0, BLOCK)
    m = c < dim
    diff = tl.load(a_ptr + r * stride + c, mask=m, other=0.0) - tl.load(b_ptr + r * stride + c, mask=m, other=0.0)
    s = tl.sum(diff * diff, axis=0)
    tl.store(d2_ptr + r, s)
    tl.store(d_ptr + r, tl.sqrt(s))


def l2_distance(a, b):
    rows, dim = a.shape
    d2 = torch.empty(rows, device=a.device)
    d = torch.empty(rows, device=a.device)
    row_l2_dist[(rows,)](a, b, d2, d, dim, a.stride(0), BLOCK=triton.next_power_of_2(dim))
    return d2, d
