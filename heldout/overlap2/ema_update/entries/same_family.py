"""SGD with momentum and weight decay (PyTorch semantics, dampening 0), fused over a flat buffer."""
import torch
import triton
import triton.language as tl


@triton.jit
def sgd_momentum_kernel(p_ptr, g_ptr, buf_ptr, n, lr, momentum, weight_decay, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    p = tl.load(p_ptr + offs, mask=mask)
    g = tl.load(g_ptr + offs, mask=mask) + weight_decay * p
    b = momentum * tl.load(buf_ptr + offs, mask=mask) + g
    tl.store(buf_ptr + offs, b, mask=mask)
    tl.store(p_ptr + offs, p - lr * b, mask=mask)


def sgd_step(p, g, buf, lr=0.01, momentum=0.9, weight_decay=0.0):
    n = p.numel()
    sgd_momentum_kernel[(triton.cdiv(n, 2048),)](p, g, buf, n, lr, momentum, weight_decay, BLOCK=2048)
