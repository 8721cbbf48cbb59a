"""torch.nn.functional.kl_div(input=log_q, target=p, reduction='none').sum(-1)

Inputs are already normalised: log_q are log-probabilities, p probabilities.
Pointwise term is xlogy(p, p) - p * log_q (0 where p == 0).  The vocab axis is
split across programs and partial row sums are combined with atomics, so long
rows do not need to fit in one block.
"""
import torch
import triton
import triton.language as tl


@triton.jit
def kl_pointwise_rowsum(logq_ptr, p_ptr, out_ptr, V, s_lq, s_p,
                        TILE_V: tl.constexpr, LOG_TARGET: tl.constexpr):
    r = tl.program_id(0)
    v = tl.program_id(1) * TILE_V + tl.arange(0, TILE_V)
    live = v < V
    lq = tl.load(logq_ptr + r * s_lq + v, mask=live, other=0.0).to(tl.float32)
    t = tl.load(p_ptr + r * s_p + v, mask=live, other=0.0).to(tl.float32)
    if LOG_TARGET:
        # target given as log-probabilities
        val = tl.exp(t) * (t - lq)
    else:
        safe = tl.where(t > 0, t, 1.0)
        val = tl.where(t > 0, t * (tl.log(safe) - lq), 0.0)
    val = tl.where(live, val, 0.0)
    tl.atomic_add(out_ptr + r, tl.sum(val, axis=0))


def kl_div_rowsum(log_q, target, log_target=False, tile=4096):
    assert log_q.shape == target.shape
    V = log_q.shape[-1]
    lq = log_q.reshape(-1, V)
    tg = target.reshape(-1, V)
    if lq.stride(-1) != 1:
        lq = lq.contiguous()
    if tg.stride(-1) != 1:
        tg = tg.contiguous()
    R = lq.shape[0]
    out = torch.zeros(R, device=lq.device, dtype=torch.float32)
    TILE_V = min(tile, triton.next_power_of_2(V))
    kl_pointwise_rowsum[(R, triton.cdiv(V, TILE_V))](
        lq, tg, out, V, lq.stride(0), tg.stride(0),
        TILE_V=TILE_V, LOG_TARGET=log_target, num_warps=8 if TILE_V >= 2048 else 4,
    )
    return out.reshape(log_q.shape[:-1])
