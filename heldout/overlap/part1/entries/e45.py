"""Softmax / log-softmax over the last dim with temperature, for long vocab rows."""
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def tempered_softmax_kernel(
    in_ptr, out_ptr,
    in_row_stride, out_row_stride,
    n_cols, inv_temp,
    LOG: tl.constexpr,
    BLOCK_SIZE: tl.constexpr,
):
    row_id = tl.program_id(0)
    row_in = in_ptr + row_id.to(tl.int64) * in_row_stride
    row_out = out_ptr + row_id.to(tl.int64) * out_row_stride
    n_full = (n_cols // BLOCK_SIZE) * BLOCK_SIZE

    m_i = tl.full([BLOCK_SIZE], float("-inf"), dtype=tl.float32)
    d_i = tl.zeros([BLOCK_SIZE], dtype=tl.float32)
    # full blocks: no masking needed
    for off in range(0, n_full, BLOCK_SIZE):
        x = tl.load(row_in + off + tl.arange(0, BLOCK_SIZE)).to(tl.float32) * inv_temp
        m_new = tl.maximum(m_i, x)
        d_i = d_i * tl.exp(m_i - m_new) + tl.exp(x - m_new)
        m_i = m_new
    # ragged tail
    if n_full < n_cols:
        idx = n_full + tl.arange(0, BLOCK_SIZE)
        x = tl.load(row_in + idx, mask=idx < n_cols, other=float("-inf")).to(tl.float32) * inv_temp
        m_new = tl.maximum(m_i, x)
        dead = m_new == float("-inf")
        d_i = d_i * tl.where(dead, 0.0, tl.exp(m_i - m_new)) + tl.where(dead, 0.0, tl.exp(x - m_new))
        m_i = m_new

    m = tl.max(m_i, axis=0)
    d = tl.sum(d_i * tl.exp(m_i - m), axis=0)
    log_d = tl.log(d)
    inv_d = 1.0 / d

    for off in range(0, n_cols, BLOCK_SIZE):
        idx = off + tl.arange(0, BLOCK_SIZE)
        mask = idx < n_cols
        x = tl.load(row_in + idx, mask=mask, other=float("-inf")).to(tl.float32) * inv_temp
        if LOG:
            y = x - m - log_d
        else:
            y = tl.exp(x - m) * inv_d
        tl.store(row_out + idx, y.to(out_ptr.dtype.element_ty), mask=mask)


def tempered_softmax(x, temperature=1.0, log=False):
    shape = x.shape
    x2 = x.reshape(-1, shape[-1])
    if x2.stride(-1) != 1:
        x2 = x2.contiguous()
    n_rows, n_cols = x2.shape
    out = torch.empty_like(x2)
    BLOCK_SIZE = min(triton.next_power_of_2(n_cols), 2048)
    tempered_softmax_kernel[(n_rows,)](
        x2, out, x2.stride(0), out.stride(0), n_cols, 1.0 / temperature,
        LOG=log, BLOCK_SIZE=BLOCK_SIZE, num_warps=8 if BLOCK_SIZE >= 2048 else 4,
    )
    return out.reshape(shape)


class ModelNew(nn.Module):
    def __init__(self, temperature=1.0, log=False):
        super().__init__()
        self.temperature = temperature
        self.log = log

    def forward(self, x):
        return tempered_softmax(x, self.temperature, self.log)
