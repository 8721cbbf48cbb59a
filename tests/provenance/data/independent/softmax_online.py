"""Softmax with an online normaliser (Milakov & Gimelshein): one pass for max and sum, one to write."""
import torch
import triton
import triton.language as tl


@triton.jit
def online_softmax_kernel(output_ptr, input_ptr, input_row_stride, output_row_stride, n_cols,
                          TILE: tl.constexpr):
    row_idx = tl.program_id(0)
    in_row = input_ptr + row_idx * input_row_stride
    out_row = output_ptr + row_idx * output_row_stride
    m_i = tl.full([TILE], float("-inf"), dtype=tl.float32)
    d_i = tl.zeros([TILE], dtype=tl.float32)
    for col0 in range(0, n_cols, TILE):
        col = col0 + tl.arange(0, TILE)
        v = tl.load(in_row + col, mask=col < n_cols, other=float("-inf"))
        m_new = tl.maximum(m_i, v)
        d_i = d_i * tl.exp(m_i - m_new) + tl.exp(v - m_new)
        m_i = m_new
    m = tl.max(m_i, 0)
    d = tl.sum(d_i * tl.exp(m_i - m), 0)
    for col0 in range(0, n_cols, TILE):
        col = col0 + tl.arange(0, TILE)
        msk = col < n_cols
        v = tl.load(in_row + col, mask=msk, other=float("-inf"))
        tl.store(out_row + col, tl.exp(v - m) / d, mask=msk)


def softmax(x: torch.Tensor) -> torch.Tensor:
    n_rows, n_cols = x.shape
    y = torch.empty_like(x)
    online_softmax_kernel[(n_rows,)](y, x, x.stride(0), y.stride(0), n_cols, TILE=512)
    return y
