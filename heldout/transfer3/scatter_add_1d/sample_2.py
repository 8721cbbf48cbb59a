"""Scatter-add with atomics: every element adds itself to bin index[i] of a zero-initialised output."""
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def _atomic_bin_add(values, bins, hist, total, TILE: tl.constexpr):
    start = tl.program_id(0) * TILE
    i = start + tl.arange(0, TILE)
    keep = i < total
    b = tl.load(bins + i, mask=keep, other=0)
    v = tl.load(values + i, mask=keep, other=0.0)
    tl.atomic_add(hist + b, v, mask=keep)


class ModelNew(nn.Module):
    def __init__(self, num_bins=64):
        super().__init__()
        self.num_bins = num_bins

    def forward(self, src, index):
        total = src.numel()
        hist = torch.zeros(self.num_bins, device=src.device, dtype=torch.float32)
        TILE = 512
        num_tiles = total // TILE
        _atomic_bin_add[(num_tiles,)](src, index, hist, total, TILE=TILE, num_warps=4)
        return hist
