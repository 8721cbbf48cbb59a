"""Communication-side tensor transforms for the data-parallel trainer.

Gradients are optionally quantised or sparsified before the all-reduce;
the residual that was not sent is kept locally (error feedback).
"""
from dataclasses import dataclass

import torch
import triton
import triton.language as tl


@dataclass
class CommConfig:
    mode: str = "none"          # none | int8 | sparse
    keep_ratio: float = 0.25
    error_feedback: bool = True


# ------------------------------------------------------------- int8 path ---
@triton.jit
def _quant_rows_int8(X, Q, S, N, stride, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    m = cols < N
    x = tl.load(X + row * stride + cols, mask=m, other=0.0).to(tl.float32)
    amax = tl.maximum(tl.max(tl.abs(x), axis=0), 1e-12)
    scale = amax / 127.0
    q = tl.extra.cuda.libdevice.rint(x / scale)
    q = tl.minimum(tl.maximum(q, -127.0), 127.0)
    tl.store(Q + row * stride + cols, q.to(tl.int8), mask=m)
    tl.store(S + row, scale)


@triton.jit
def _dequant_rows_int8(Q, S, X, N, stride, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    m = cols < N
    q = tl.load(Q + row * stride + cols, mask=m, other=0).to(tl.float32)
    tl.store(X + row * stride + cols, q * tl.load(S + row), mask=m)


def quantize_int8(x2d):
    R, N = x2d.shape
    q = torch.empty((R, N), device=x2d.device, dtype=torch.int8)
    s = torch.empty(R, device=x2d.device, dtype=torch.float32)
    _quant_rows_int8[(R,)](x2d, q, s, N, N, BLOCK=triton.next_power_of_2(N))
    return q, s


def dequantize_int8(q, s):
    R, N = q.shape
    x = torch.empty((R, N), device=q.device, dtype=torch.float32)
    _dequant_rows_int8[(R,)](q, s, x, N, N, BLOCK=triton.next_power_of_2(N))
    return x


# ----------------------------------------------------------- sparse path ---
@triton.jit
def _sparsify_rows(x_ptr, y_ptr, n_cols, stride_x, stride_y, ratio, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    x_row = x_ptr + row * stride_x
    y_row = y_ptr + row * stride_y

    run_max = tl.zeros([BLOCK], dtype=tl.float32)
    for start in range(0, n_cols, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        v = tl.load(x_row + cols, mask=cols < n_cols, other=0.0).to(tl.float32)
        run_max = tl.maximum(run_max, tl.abs(v))
    thresh = tl.max(run_max, axis=0) * ratio

    for start in range(0, n_cols, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        m = cols < n_cols
        v = tl.load(x_row + cols, mask=m, other=0.0)
        keep = tl.abs(v.to(tl.float32)) >= thresh
        tl.store(y_row + cols, tl.where(keep, v, 0.0), mask=m)


def sparsify(x2d, ratio):
    R, N = x2d.shape
    y = torch.empty_like(x2d)
    BLOCK = min(4096, triton.next_power_of_2(N))
    _sparsify_rows[(R,)](x2d, y, N, x2d.stride(0), y.stride(0), ratio, BLOCK=BLOCK,
                         num_warps=8 if BLOCK >= 2048 else 4)
    return y


# --------------------------------------------------------- error feedback ---
@triton.jit
def _ef_accumulate(G, E, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    g = tl.load(G + offs, mask=m)
    e = tl.load(E + offs, mask=m)
    tl.store(G + offs, g + e, mask=m)


class GradCompressor:
    def __init__(self, cfg: CommConfig):
        self.cfg = cfg
        self.residual = {}

    def _as_rows(self, g):
        return g.reshape(g.shape[0], -1) if g.dim() > 1 else g.reshape(1, -1)

    def compress(self, name, grad):
        g = self._as_rows(grad.float().contiguous())
        if self.cfg.error_feedback and name in self.residual:
            n = g.numel()
            _ef_accumulate[(triton.cdiv(n, 1024),)](g, self.residual[name], n, BLOCK=1024)
        if self.cfg.mode == "int8":
            q, s = quantize_int8(g)
            sent = dequantize_int8(q, s)
            payload = (q, s)
        elif self.cfg.mode == "sparse":
            sent = sparsify(g, self.cfg.keep_ratio)
            payload = sent.to_sparse()
        else:
            return grad, None
        if self.cfg.error_feedback:
            self.residual[name] = (g - sent).contiguous()
        return sent.view_as(grad).to(grad.dtype), payload
