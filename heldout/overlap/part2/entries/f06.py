import torch
import triton
import triton.language as tl


@triton.jit
def _moments(g, m, v, beta1, beta2):
    # lerp form: m += (1 - b1) * (g - m)
    m = m + (1.0 - beta1) * (g - m)
    v = v + (1.0 - beta2) * (g * g - v)
    return m, v


@triton.jit
def adam_persistent_kernel(
    param_ptr, grad_ptr, exp_avg_ptr, exp_avg_sq_ptr, n_elements,
    lr, beta1, beta2, eps, weight_decay, bias_corr1, bias_corr2, grad_scale,
    MAXIMIZE: tl.constexpr, BLOCK_SIZE: tl.constexpr,
):
    pid = tl.program_id(0)
    step = tl.num_programs(0) * BLOCK_SIZE
    for start in range(pid * BLOCK_SIZE, n_elements, step):
        offs = start + tl.arange(0, BLOCK_SIZE)
        mask = offs < n_elements
        p = tl.load(param_ptr + offs, mask=mask).to(tl.float32)
        g = tl.load(grad_ptr + offs, mask=mask).to(tl.float32) * grad_scale
        if MAXIMIZE:
            g = -g
        g += weight_decay * p
        m, v = _moments(g,
                        tl.load(exp_avg_ptr + offs, mask=mask),
                        tl.load(exp_avg_sq_ptr + offs, mask=mask),
                        beta1, beta2)
        p -= lr * (m / bias_corr1) / (tl.sqrt(v / bias_corr2) + eps)
        tl.store(param_ptr + offs, p.to(param_ptr.dtype.element_ty), mask=mask)
        tl.store(exp_avg_ptr + offs, m, mask=mask)
        tl.store(exp_avg_sq_ptr + offs, v, mask=mask)


def adam_step(param, grad, exp_avg, exp_avg_sq, step, lr=1e-3, beta1=0.9, beta2=0.999,
              eps=1e-8, weight_decay=0.0, grad_scale=1.0, maximize=False, max_programs=1024):
    """grad_scale multiplies the incoming gradient (e.g. 1/loss_scale from AMP)."""
    n = param.numel()
    BLOCK_SIZE = 512
    grid = (max(1, min(triton.cdiv(n, BLOCK_SIZE), max_programs)),)
    adam_persistent_kernel[grid](
        param, grad, exp_avg, exp_avg_sq, n,
        lr, beta1, beta2, eps, weight_decay,
        1.0 - beta1 ** step, 1.0 - beta2 ** step, grad_scale,
        MAXIMIZE=maximize, BLOCK_SIZE=BLOCK_SIZE, num_warps=4,
    )
    return param


class ModelNew(torch.nn.Module):
    def forward(self, param, grad, exp_avg, exp_avg_sq, step: int = 1):
        return adam_step(param, grad, exp_avg, exp_avg_sq, step)
