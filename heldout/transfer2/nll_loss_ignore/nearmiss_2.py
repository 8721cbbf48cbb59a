"""NLL loss with ignore_index: a single program walks the rows in chunks, accumulating the picked log-probs and the count."""
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def nll_loss_kernel(logp_ptr, tgt_ptr, out_ptr, M, stride_row, ignore_index, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    picked_sum = tl.zeros([BLOCK], dtype=tl.float32)
    n_valid = tl.zeros([BLOCK], dtype=tl.float32)
    for r0 in range(0, M, BLOCK):
        rows = r0 + offs
        in_range = rows < M
        tgt = tl.load(tgt_ptr + rows, mask=in_range, other=0)
        valid = in_range & (tgt != -100)
        lp = tl.load(logp_ptr + rows * stride_row + tgt, mask=valid, other=0.0)
        picked_sum += lp
        n_valid += valid.to(tl.float32)
    total = tl.sum(picked_sum, axis=0)
    count = tl.sum(n_valid, axis=0)
    tl.store(out_ptr, -total / count)


class ModelNew(nn.Module):
    def __init__(self, ignore_index=-100):
        super().__init__()
        self.ignore_index = ignore_index

    def forward(self, logp, target):
        logp = logp.contiguous()
        M, C = logp.shape
        out = torch.empty((), dtype=logp.dtype, device=logp.device)
        nll_loss_kernel[(1,)](logp, target, out, M, logp.stride(0), self.ignore_index, BLOCK=64)
        return out
