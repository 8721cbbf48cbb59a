"""Top-k mask for sparse attention: keep the k largest scores of each row, set the rest to -inf (k-th value found by
bisection on the value range)."""
import torch
import triton
import triton.language as tl


@triton.jit
def topk_mask_kernel(s_ptr, out_ptr, n, stride, k, ITERS: tl.constexpr, BLOCK: tl.constexpr):
    r = tl.program_id(0)
    c = tl.arange(0, BLOCK)
    ok = c < n
    s = tl.load(s_ptr + r * stride + c, mask=ok, other=-float("inf"))
    lo = tl.min(tl.where(ok, s, float("inf")), axis=0)
    hi = tl.max(s, axis=0)
    for _ in range(ITERS):
        mid = 0.5 * (lo + hi)
        cnt = tl.sum((s >= mid).to(tl.int32), axis=0)
        lo = tl.where(cnt >= k, mid, lo)
        hi = tl.where(cnt >= k, hi, mid)
    tl.store(out_ptr + r * stride + c, tl.where(s >= lo, s, -float("inf")), mask=ok)


def topk_mask(scores: torch.Tensor, k: int) -> torch.Tensor:
    rows, n = scores.shape
    out = torch.empty_like(scores)
    topk_mask_kernel[(rows,)](scores, out, n, scores.stride(0), k, ITERS=24, BLOCK=triton.next_power_of_2(n))
    return out
