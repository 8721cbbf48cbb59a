import torch
import triton
import triton.language as tl


@triton.jit
def _masked_tile_sum(x_row_ptr, m_row_ptr, l_start, seq_len, offs_d, d_ok,
                     stride_xl, stride_xd, stride_ml, BLOCK_L: tl.constexpr):
    offs_l = l_start + tl.arange(0, BLOCK_L)
    l_ok = offs_l < seq_len
    w = tl.load(m_row_ptr + offs_l * stride_ml, mask=l_ok, other=0).to(tl.float32)
    tile = tl.load(x_row_ptr + offs_l[:, None] * stride_xl + offs_d[None, :] * stride_xd,
                   mask=l_ok[:, None] & d_ok[None, :], other=0.0).to(tl.float32)
    return tl.sum(tile * w[:, None], axis=0), tl.sum(w, axis=0)


@triton.jit
def masked_mean_kernel(
    x_ptr, mask_ptr, out_ptr,
    seq_len, hidden, min_count,
    stride_xb, stride_xl, stride_xd,
    stride_mb, stride_ml,
    stride_ob, stride_od,
    BLOCK_L: tl.constexpr, BLOCK_D: tl.constexpr,
):
    pid_d = tl.program_id(1)
    pid_b = tl.program_id(0)
    offs_d = pid_d * BLOCK_D + tl.arange(0, BLOCK_D)
    d_ok = offs_d < hidden
    x_row = x_ptr + pid_b * stride_xb
    m_row = mask_ptr + pid_b * stride_mb

    acc = tl.zeros([BLOCK_D], dtype=tl.float32)
    count = 0.0
    for l0 in range(0, seq_len, BLOCK_L):
        part, c = _masked_tile_sum(x_row, m_row, l0, seq_len, offs_d, d_ok,
                                   stride_xl, stride_xd, stride_ml, BLOCK_L)
        acc += part
        count += c

    inv = 1.0 / tl.maximum(count, min_count)
    tl.store(out_ptr + pid_b * stride_ob + offs_d * stride_od,
             (acc * inv).to(out_ptr.dtype.element_ty), mask=d_ok)


def masked_mean(x, mask, min_count=1.0, BLOCK_L=16, BLOCK_D=256):
    B, L, D = x.shape
    assert mask.shape == (B, L)
    if mask.dtype == torch.bool:
        mask = mask.to(torch.uint8)
    out = torch.empty((B, D), device=x.device, dtype=x.dtype)
    grid = (B, triton.cdiv(D, BLOCK_D))
    masked_mean_kernel[grid](
        x, mask, out, L, D, float(min_count),
        *x.stride(), *mask.stride(), *out.stride(),
        BLOCK_L=BLOCK_L, BLOCK_D=BLOCK_D, num_warps=4,
    )
    return out


class ModelNew(torch.nn.Module):
    def __init__(self, min_count: float = 1.0):
        super().__init__()
        self.min_count = min_count

    def forward(self, x, mask):
        return masked_mean(x, mask, self.min_count)
