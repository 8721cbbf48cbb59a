"""Inclusive cumulative sum along the last dim, for rows of arbitrary length.

Rows are processed in BLOCK-wide chunks; each chunk is scanned with
tl.associative_scan and the running carry from previous chunks is added.
"""
import torch
import triton
import triton.language as tl


@triton.jit
def _add(a, b):
    return a + b


@triton.jit
def cumsum_rows_kernel(x_ptr, y_ptr, L, sx, sy, REVERSE: tl.constexpr, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    carry = tl.zeros([1], dtype=tl.float32)
    for start in range(0, L, BLOCK):
        i = start + tl.arange(0, BLOCK)
        if REVERSE:
            j = L - 1 - i
        else:
            j = i
        valid = i < L
        v = tl.load(x_ptr + row * sx + j, mask=valid, other=0.0).to(tl.float32)
        s = tl.associative_scan(v, 0, _add) + carry
        tl.store(y_ptr + row * sy + j, s.to(y_ptr.dtype.element_ty), mask=valid)
        carry += tl.sum(v, axis=0)


def cumsum(x, reverse=False):
    L = x.shape[-1]
    x2 = x.reshape(-1, L).contiguous()
    y = torch.empty_like(x2)
    BLOCK = min(1024, triton.next_power_of_2(L))
    cumsum_rows_kernel[(x2.shape[0],)](x2, y, L, x2.stride(0), y.stride(0),
                                        REVERSE=reverse, BLOCK=BLOCK, num_warps=4)
    return y.view_as(x)


if __name__ == "__main__":
    a = torch.randn(5, 3000, device="cuda")
    torch.testing.assert_close(cumsum(a), a.cumsum(-1), rtol=1e-4, atol=1e-3)
    torch.testing.assert_close(cumsum(a, reverse=True), a.flip(-1).cumsum(-1).flip(-1), rtol=1e-4, atol=1e-3)
    print("ok")
