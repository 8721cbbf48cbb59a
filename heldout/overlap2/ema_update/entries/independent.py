"""Polyak averaging of a target network, written for a DQN trainer: target = tau * online + (1 - tau) * target,
applied tensor by tensor."""
import torch
import triton
import triton.language as tl


@triton.jit
def soft_update_kernel(target_ptr, online_ptr, numel, tau, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    idx = pid * BLOCK + tl.arange(0, BLOCK)
    m = idx < numel
    tgt = tl.load(target_ptr + idx, mask=m, other=0.0)
    onl = tl.load(online_ptr + idx, mask=m, other=0.0)
    tl.store(target_ptr + idx, tau * onl + (1.0 - tau) * tgt, mask=m)


@torch.no_grad()
def soft_update(target: torch.nn.Module, online: torch.nn.Module, tau: float = 0.005):
    for t, o in zip(target.parameters(), online.parameters()):
        n = t.numel()
        soft_update_kernel[(triton.cdiv(n, 1024),)](t.data, o.data, n, tau, BLOCK=1024)
