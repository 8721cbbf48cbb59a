# Split-sequence masked average: long sequences are cut into chunks so that
# short batches still fill the GPU.  Partial sums are combined with atomics
# into an fp32 buffer and normalised by a second tiny kernel.
import torch
import triton
import triton.language as tl


@triton.jit
def _chunk_accumulate(X, Msk, Acc, Cnt, L, D,
                      CHUNK: tl.constexpr, DBLK: tl.constexpr):
    b = tl.program_id(0)
    chunk = tl.program_id(1)
    t_lo = chunk * CHUNK
    t_hi = tl.minimum(t_lo + CHUNK, L)

    n_tok = 0.0
    for t in range(t_lo, t_hi):
        flag = tl.load(Msk + b * L + t)
        if flag != 0:
            n_tok += 1.0
            for d0 in range(0, D, DBLK):
                dd = d0 + tl.arange(0, DBLK)
                row = tl.load(X + (b * L + t) * D + dd, mask=dd < D, other=0.0)
                tl.atomic_add(Acc + b * D + dd, row.to(tl.float32), mask=dd < D)
    tl.atomic_add(Cnt + b, n_tok)


@triton.jit
def _finalize(Acc, Cnt, Out, D, DBLK: tl.constexpr):
    b = tl.program_id(0)
    dd = tl.program_id(1) * DBLK + tl.arange(0, DBLK)
    c = tl.load(Cnt + b)
    s = tl.load(Acc + b * D + dd, mask=dd < D, other=0.0)
    r = tl.where(c > 0.0, s / c, 0.0)
    tl.store(Out + b * D + dd, r.to(Out.dtype.element_ty), mask=dd < D)


def mean_pool_padded(x, attn_mask, chunk=128):
    x = x.contiguous()
    m = attn_mask.to(torch.int32).contiguous()
    B, L, D = x.shape
    acc = torch.zeros((B, D), device=x.device, dtype=torch.float32)
    cnt = torch.zeros((B,), device=x.device, dtype=torch.float32)
    dblk = min(1024, triton.next_power_of_2(D))
    _chunk_accumulate[(B, triton.cdiv(L, chunk))](x, m, acc, cnt, L, D, CHUNK=chunk, DBLK=dblk)
    out = torch.empty((B, D), device=x.device, dtype=x.dtype)
    _finalize[(B, triton.cdiv(D, dblk))](acc, cnt, out, D, DBLK=dblk)
    return out
