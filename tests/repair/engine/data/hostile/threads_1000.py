"""Hostile fixture: a correct kernel whose forward also starts 1,000 threads that never end (small stacks, so
that all of them fit its memory limit); it returns with them still running."""
import threading

import torch
import torch.nn as nn
import triton
import triton.language as tl

_STOP = threading.Event()  # never set
_THREADS: list[threading.Thread] = []


@triton.jit
def add_relu_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0)
    y = tl.load(y_ptr + offs, mask=mask, other=0.0)
    tl.store(out_ptr + offs, tl.maximum(x + y, 0.0), mask=mask)


class ModelNew(nn.Module):
    def forward(self, x, y):
        if not _THREADS:  # once per process (a case may run twice in it)
            threading.stack_size(256 << 10)
            for _ in range(1000):
                _THREADS.append(threading.Thread(target=_STOP.wait))
                _THREADS[-1].start()
        out = torch.empty_like(x)
        add_relu_kernel[(triton.cdiv(x.numel(), 1024),)](x, y, out, x.numel(), BLOCK=1024)
        return out
