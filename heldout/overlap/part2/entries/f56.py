import torch
import triton
import triton.language as tl


@triton.jit
def histc_persistent_kernel(x_ptr, hist_ptr, n_elements, lo, hi, inv_width, nbins,
                            BLOCK: tl.constexpr):
    # persistent launch: each program strides over the input
    pid = tl.program_id(0)
    nprog = tl.num_programs(0)
    for start in range(pid * BLOCK, n_elements, nprog * BLOCK):
        offs = start + tl.arange(0, BLOCK)
        x = tl.load(x_ptr + offs, mask=offs < n_elements, other=float("nan")).to(tl.float32)
        keep = (x >= lo) & (x <= hi)          # NaN and padding fail both compares
        idx = ((x - lo) * inv_width).to(tl.int32)
        idx = tl.where(keep, tl.minimum(idx, nbins - 1), 0)
        tl.atomic_add(hist_ptr + idx, 1, mask=keep)


def histogram(x, bins=100, min=0.0, max=0.0):
    flat = x.reshape(-1).contiguous()
    lo, hi = float(min), float(max)
    if lo == hi:
        lo, hi = flat.min().item(), flat.max().item()
    if lo == hi:
        lo, hi = lo - 1.0, hi + 1.0
    counts = torch.zeros(bins, device=x.device, dtype=torch.int32)
    n = flat.numel()
    BLOCK = 1024
    n_sm = torch.cuda.get_device_properties(x.device).multi_processor_count
    grid = (min_(triton.cdiv(n, BLOCK), 4 * n_sm),)
    histc_persistent_kernel[grid](flat, counts, n, lo, hi, bins / (hi - lo), bins,
                                  BLOCK=BLOCK, num_warps=4)
    return counts.to(x.dtype)


def min_(a, b):
    return a if a < b else b


class ModelNew(torch.nn.Module):
    def __init__(self, bins=100, min=0.0, max=0.0):
        super().__init__()
        self.bins, self.lo, self.hi = bins, min, max

    def forward(self, x):
        return histogram(x, self.bins, self.lo, self.hi)
