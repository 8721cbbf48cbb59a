import torch
import triton
import triton.language as tl


@triton.jit
def _adam_kernel(
    param_ptr, grad_ptr, exp_avg_ptr, exp_avg_sq_ptr, n_elements,
    lr, beta1, beta2, eps, weight_decay,
    inv_bc1, inv_bc2,
    DECOUPLED: tl.constexpr, BLOCK_SIZE: tl.constexpr,
):
    offsets = tl.program_id(0) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements

    g = tl.load(grad_ptr + offsets, mask=mask).to(tl.float32)
    v = tl.load(exp_avg_sq_ptr + offsets, mask=mask)
    m = tl.load(exp_avg_ptr + offsets, mask=mask)
    p = tl.load(param_ptr + offsets, mask=mask).to(tl.float32)

    if DECOUPLED:
        p = p * (1.0 - lr * weight_decay)     # AdamW
    else:
        g = g + weight_decay * p

    v = beta2 * v + (1.0 - beta2) * g * g
    m = beta1 * m + (1.0 - beta1) * g
    tl.store(exp_avg_ptr + offsets, m, mask=mask)
    tl.store(exp_avg_sq_ptr + offsets, v, mask=mask)

    denom = tl.sqrt(v * inv_bc2) + eps
    p = p - (lr * inv_bc1) * m / denom
    tl.store(param_ptr + offsets, p.to(param_ptr.dtype.element_ty), mask=mask)


def adam_step(param, grad, exp_avg, exp_avg_sq, step,
              lr=1e-3, beta1=0.9, beta2=0.999, eps=1e-8, weight_decay=0.0, decoupled=False):
    assert param.is_contiguous() and grad.is_contiguous()
    n = param.numel()
    inv_bc1 = 1.0 / (1.0 - beta1 ** step)
    inv_bc2 = 1.0 / (1.0 - beta2 ** step)
    BLOCK_SIZE = 1024
    _adam_kernel[(triton.cdiv(n, BLOCK_SIZE),)](
        param, grad, exp_avg, exp_avg_sq, n,
        lr, beta1, beta2, eps, weight_decay, inv_bc1, inv_bc2,
        DECOUPLED=decoupled, BLOCK_SIZE=BLOCK_SIZE, num_warps=4,
    )
    return param


class ModelNew(torch.nn.Module):
    def __init__(self, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0.0, decoupled=False):
        super().__init__()
        self.lr, self.betas, self.eps, self.wd, self.decoupled = lr, betas, eps, weight_decay, decoupled

    def forward(self, param, grad, exp_avg, exp_avg_sq, step: int = 1):
        return adam_step(param, grad, exp_avg, exp_avg_sq, step, self.lr, *self.betas,
                         self.eps, self.wd, self.decoupled)
