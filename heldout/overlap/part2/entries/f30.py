import torch
import triton
import triton.language as tl


@triton.jit
def _bincount_range(src, counts, total, low, high, n_bins, CHUNK: tl.constexpr):
    start = tl.program_id(0) * CHUNK
    idx = start + tl.arange(0, CHUNK)
    live = idx < total
    val = tl.load(src + idx, mask=live, other=0.0).to(tl.float32)

    step = (high - low) / n_bins
    b = ((val - low) / step).to(tl.int32)
    b = tl.where(val == high, n_bins - 1, b)
    b = tl.minimum(tl.maximum(b, 0), n_bins - 1)

    ok = live & (val >= low) & (val <= high)
    tl.atomic_add(counts + b, 1, mask=ok)


def histc(t, bins=100, min=0.0, max=0.0):
    """Same contract as torch.histc."""
    v = t.reshape(-1).contiguous()
    low, high = float(min), float(max)
    if low == high:
        low, high = v.min().item(), v.max().item()
    if low == high:
        low -= 1.0
        high += 1.0
    counts = torch.zeros(bins, device=t.device, dtype=torch.int32)
    total = v.numel()
    CHUNK = 2048
    _bincount_range[(triton.cdiv(total, CHUNK),)](v, counts, total, low, high, bins,
                                                  CHUNK=CHUNK, num_warps=8)
    return counts.to(t.dtype)


class ModelNew(torch.nn.Module):
    def __init__(self, bins=100, min=0.0, max=0.0):
        super().__init__()
        self.bins = bins
        self.range = (min, max)

    def forward(self, x):
        return histc(x, self.bins, *self.range)
