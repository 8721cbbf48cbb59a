import torch
import triton
import triton.language as tl


@triton.jit
def _csr_reduce_add(src, indptr, dst, width, src_pitch, dst_pitch, TW: tl.constexpr):
    g = tl.program_id(0)
    lo = tl.load(indptr + g)
    hi = tl.load(indptr + g + 1)
    f = tl.program_id(1) * TW + tl.arange(0, TW)
    fm = f < width
    total = tl.zeros([TW], dtype=tl.float32)
    for i in range(lo, hi):
        total += tl.load(src + i.to(tl.int64) * src_pitch + f, mask=fm, other=0.0).to(tl.float32)
    tl.store(dst + g * dst_pitch + f, total.to(dst.dtype.element_ty), mask=fm)


def csr_reduce_add(src, indptr):
    """Sum rows of `src` between consecutive `indptr` entries."""
    if src.ndim != 2 or indptr.ndim != 1:
        raise ValueError("expected 2-D src and 1-D indptr")
    src = src.contiguous()
    indptr = indptr.to(torch.int32).contiguous()
    groups = indptr.numel() - 1
    width = src.shape[1]
    dst = torch.empty((groups, width), device=src.device, dtype=src.dtype)
    if groups <= 0:
        return dst
    TW = min(triton.next_power_of_2(width), 1024)
    _csr_reduce_add[(groups, triton.cdiv(width, TW))](
        src, indptr, dst, width, src.stride(0), dst.stride(0),
        TW=TW, num_warps=8 if TW >= 1024 else (4 if TW >= 128 else 1),
    )
    return dst
