import torch
import triton
import triton.language as tl


@triton.jit
def _fused_adam_kernel(
    param_ptr, grad_ptr, exp_avg_ptr, exp_avg_sq_ptr,
    n_elements,
    lr, beta1, beta2, eps, weight_decay,
    bias_corr1, bias_corr2,
    BLOCK_SIZE: tl.constexpr,
):
    pid = tl.program_id(axis=0)
    offsets = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements

    p = tl.load(param_ptr + offsets, mask=mask).to(tl.float32)
    g = tl.load(grad_ptr + offsets, mask=mask).to(tl.float32)
    m = tl.load(exp_avg_ptr + offsets, mask=mask)
    v = tl.load(exp_avg_sq_ptr + offsets, mask=mask)

    g = g + weight_decay * p                     # classic (L2) Adam weight decay
    m = beta1 * m + (1.0 - beta1) * g
    v = beta2 * v + (1.0 - beta2) * g * g

    m_hat = m / bias_corr1
    v_hat = v / bias_corr2
    p = p - lr * m_hat / (tl.sqrt(v_hat) + eps)

    tl.store(param_ptr + offsets, p.to(param_ptr.dtype.element_ty), mask=mask)
    tl.store(exp_avg_ptr + offsets, m, mask=mask)
    tl.store(exp_avg_sq_ptr + offsets, v, mask=mask)


def adam_step(param, grad, exp_avg, exp_avg_sq, step,
              lr=1e-3, beta1=0.9, beta2=0.999, eps=1e-8, weight_decay=0.0):
    """In-place Adam update; exp_avg / exp_avg_sq are fp32 state tensors."""
    assert param.is_contiguous() and grad.is_contiguous()
    n = param.numel()
    bias_corr1 = 1.0 - beta1 ** step
    bias_corr2 = 1.0 - beta2 ** step
    BLOCK_SIZE = 1024
    grid = (triton.cdiv(n, BLOCK_SIZE),)
    _fused_adam_kernel[grid](
        param, grad, exp_avg, exp_avg_sq, n,
        lr, beta1, beta2, eps, weight_decay,
        bias_corr1, bias_corr2,
        BLOCK_SIZE=BLOCK_SIZE, num_warps=4,
    )
    return param


class ModelNew(torch.nn.Module):
    def __init__(self, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0.0):
        super().__init__()
        self.lr, self.betas, self.eps, self.wd = lr, betas, eps, weight_decay

    def forward(self, param, grad, exp_avg, exp_avg_sq, step: int = 1):
        return adam_step(param, grad, exp_avg, exp_avg_sq, step,
                         self.lr, self.betas[0], self.betas[1], self.eps, self.wd)
