"""Numerically stable logsumexp of each row, two passes (max, then sum of exponentials), for a CRF's partition
function; chunks of 1024 columns."""
import torch
import triton
import triton.language as tl


@triton.jit
def partition_kernel(scores_ptr, logz_ptr, n, row_stride, CH: tl.constexpr):
    i = tl.program_id(0)
    j = tl.arange(0, CH)
    mx = tl.full([CH], -float("inf"), tl.float32)
    for k in range(0, n, CH):
        v = tl.load(scores_ptr + i * row_stride + k + j, mask=k + j < n, other=-float("inf"))
        mx = tl.maximum(mx, v)
    big = tl.max(mx, axis=0)
    tot = tl.zeros([CH], tl.float32)
    for k in range(0, n, CH):
        v = tl.load(scores_ptr + i * row_stride + k + j, mask=k + j < n, other=-float("inf"))
        tot += tl.exp(v - big)
    tl.store(logz_ptr + i, big + tl.log(tl.sum(tot, axis=0)))


def log_partition(scores: torch.Tensor) -> torch.Tensor:
    out = torch.empty(scores.shape[0], device=scores.device, dtype=torch.float32)
    partition_kernel[(scores.shape[0],)](scores, out, scores.shape[1], scores.stride(0), CH=1024)
    return out
