import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def scatter_add_kernel(src_ptr, index_ptr, out_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(axis=0)
    offsets = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements

    idx = tl.load(index_ptr + offsets, mask=mask, other=0)
    vals = tl.load(src_ptr + offsets, mask=mask, other=0.0)

    # read-modify-write the destination bins
    current = tl.load(out_ptr + idx, mask=mask, other=0.0)
    tl.store(out_ptr + idx, current + vals, mask=mask)


class ModelNew(nn.Module):
    def __init__(self, num_bins=64):
        super().__init__()
        self.num_bins = num_bins

    def forward(self, src, index):
        src = src.contiguous()
        index = index.contiguous()
        out = torch.zeros(self.num_bins, dtype=src.dtype, device=src.device)
        n_elements = src.numel()
        grid = lambda meta: (triton.cdiv(n_elements, meta["BLOCK_SIZE"]),)
        scatter_add_kernel[grid](src, index, out, n_elements, BLOCK_SIZE=1024)
        return out
