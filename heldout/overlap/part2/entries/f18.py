import torch
import triton
import triton.language as tl


@triton.jit
def pool_masked_kernel(
    x_ptr, mask_ptr, out_ptr, seq_len, hidden, out_scale,
    sxb, sxl, sxd, smb, sml, sob, sod,
    APPLY_SCALE: tl.constexpr, SKIP_EMPTY: tl.constexpr,
    BLOCK_L: tl.constexpr, BLOCK_D: tl.constexpr,
):
    b = tl.program_id(0)
    offs_d = tl.program_id(1) * BLOCK_D + tl.arange(0, BLOCK_D)
    d_ok = offs_d < hidden
    ar_l = tl.arange(0, BLOCK_L)

    # pointers advanced in place instead of recomputing offsets every step
    x_ptrs = x_ptr + b * sxb + ar_l[:, None] * sxl + offs_d[None, :] * sxd
    m_ptrs = mask_ptr + b * smb + ar_l * sml

    acc = tl.zeros([BLOCK_D], dtype=tl.float32)
    cnt = tl.zeros([BLOCK_L], dtype=tl.float32)
    for l0 in range(0, seq_len, BLOCK_L):
        l_ok = (l0 + ar_l) < seq_len
        keep = tl.load(m_ptrs, mask=l_ok, other=0) != 0
        n_keep = tl.sum(keep.to(tl.int32), axis=0)
        if (not SKIP_EMPTY) or n_keep > 0:
            xt = tl.load(x_ptrs, mask=keep[:, None] & d_ok[None, :], other=0.0)
            acc += tl.sum(tl.where(keep[:, None], xt.to(tl.float32), 0.0), axis=0)
            cnt += keep.to(tl.float32)
        x_ptrs += BLOCK_L * sxl
        m_ptrs += BLOCK_L * sml

    n_valid = tl.sum(cnt, axis=0)
    res = tl.where(n_valid > 0, acc / n_valid, 0.0)
    if APPLY_SCALE:
        res = res * out_scale
    tl.store(out_ptr + b * sob + offs_d * sod, res.to(out_ptr.dtype.element_ty), mask=d_ok)


def pool_masked(x, mask, scale=None, skip_empty=True):
    B, L, D = x.shape
    if mask.dtype == torch.bool:
        mask = mask.view(torch.uint8)
    out = torch.empty((B, D), device=x.device, dtype=x.dtype)
    BLOCK_L, BLOCK_D = 32, 128
    pool_masked_kernel[(B, triton.cdiv(D, BLOCK_D))](
        x, mask, out, L, D, 1.0 if scale is None else float(scale),
        x.stride(0), x.stride(1), x.stride(2),
        mask.stride(0), mask.stride(1),
        out.stride(0), out.stride(1),
        APPLY_SCALE=scale is not None, SKIP_EMPTY=skip_empty,
        BLOCK_L=BLOCK_L, BLOCK_D=BLOCK_D, num_warps=4,
    )
    return out


class ModelNew(torch.nn.Module):
    def forward(self, x, mask):
        return pool_masked(x, mask)
