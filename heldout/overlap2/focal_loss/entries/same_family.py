"""Binary cross-entropy with logits and a positive-class weight, mean reduction, partial sums per block."""
import torch
import triton
import triton.language as tl


@triton.jit
def bce_pos_weight_kernel(x_ptr, y_ptr, partial_ptr, n, pos_weight, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m, other=0.0)
    y = tl.load(y_ptr + offs, mask=m, other=0.0)
    log_sig = tl.minimum(x, 0.0) - tl.log(1.0 + tl.exp(-tl.abs(x)))
    log_one_minus = log_sig - x
    l = -(pos_weight * y * log_sig + (1.0 - y) * log_one_minus)
    tl.store(partial_ptr + pid, tl.sum(tl.where(m, l, 0.0), axis=0))


def bce_with_logits(x, y, pos_weight=1.0):
    n = x.numel()
    nb = triton.cdiv(n, 4096)
    partial = torch.empty(nb, device=x.device)
    bce_pos_weight_kernel[(nb,)](x.reshape(-1), y.reshape(-1), partial, n, pos_weight, BLOCK=4096)
    return partial.sum() / n
