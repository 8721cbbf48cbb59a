"""Losses for the distillation trainer (forward only; used for eval logging).

All kernels take [rows, vocab] logits and process one row per program with
the whole row resident, so vocab is capped at 64k.
"""
from dataclasses import dataclass

import torch
import triton
import triton.language as tl

MAX_VOCAB_BLOCK = 65536


@triton.jit
def _ce_smooth_kernel(logits, labels, out, stride, V, smoothing, ignore_index,
                      BLOCK: tl.constexpr):
    r = tl.program_id(0)
    c = tl.arange(0, BLOCK)
    m = c < V
    y = tl.load(labels + r)
    z = tl.load(logits + r * stride + c, mask=m, other=-float("inf")).to(tl.float32)
    mx = tl.max(z, axis=0)
    lse = tl.log(tl.sum(tl.exp(z - mx), axis=0)) + mx
    z_y = tl.sum(tl.where(c == y, z, 0.0), axis=0)
    mean_z = tl.sum(tl.where(m, z, 0.0), axis=0) / V
    loss = (1.0 - smoothing) * (lse - z_y) + smoothing * (lse - mean_z)
    loss = tl.where(y == ignore_index, 0.0, loss)
    tl.store(out + r, loss)


@triton.jit
def _kl_kernel(p_ptr, q_ptr, out_ptr, stride_p, stride_q, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    valid = cols < n_cols
    lp = tl.load(p_ptr + row * stride_p + cols, mask=valid, other=-float("inf")).to(tl.float32)
    lq = tl.load(q_ptr + row * stride_q + cols, mask=valid, other=-float("inf")).to(tl.float32)
    mp = tl.max(lp, axis=0)
    logp = lp - (tl.log(tl.sum(tl.exp(lp - mp), axis=0)) + mp)
    mq = tl.max(lq, axis=0)
    logq = lq - (tl.log(tl.sum(tl.exp(lq - mq), axis=0)) + mq)
    term = tl.where(valid, tl.exp(logp) * (logp - logq), 0.0)
    tl.store(out_ptr + row, tl.sum(term, axis=0))


@triton.jit
def _top1_match_kernel(a_ptr, b_ptr, out_ptr, stride_a, stride_b, V, BLOCK: tl.constexpr):
    r = tl.program_id(0)
    c = tl.arange(0, BLOCK)
    m = c < V
    za = tl.load(a_ptr + r * stride_a + c, mask=m, other=-float("inf"))
    zb = tl.load(b_ptr + r * stride_b + c, mask=m, other=-float("inf"))
    ia = tl.argmax(za, axis=0)
    ib = tl.argmax(zb, axis=0)
    tl.store(out_ptr + r, (ia == ib).to(tl.float32))


@triton.jit
def _zloss_kernel(logits, out, stride, V, BLOCK: tl.constexpr):
    r = tl.program_id(0)
    c = tl.arange(0, BLOCK)
    z = tl.load(logits + r * stride + c, mask=c < V, other=-float("inf")).to(tl.float32)
    mx = tl.max(z, axis=0)
    lse = tl.log(tl.sum(tl.exp(z - mx), axis=0)) + mx
    tl.store(out + r, lse * lse)


def _launch_cfg(V):
    B = triton.next_power_of_2(V)
    if B > MAX_VOCAB_BLOCK:
        raise ValueError(f"vocab {V} exceeds single-block limit")
    return B, (4 if B < 2048 else 8 if B < 8192 else 16)


def cross_entropy(logits, labels, smoothing=0.0, ignore_index=-100):
    R, V = logits.shape
    B, w = _launch_cfg(V)
    out = torch.empty(R, device=logits.device, dtype=torch.float32)
    _ce_smooth_kernel[(R,)](logits, labels, out, logits.stride(0), V, smoothing, ignore_index,
                            BLOCK=B, num_warps=w)
    valid = (labels != ignore_index).sum().clamp(min=1)
    return out.sum() / valid


def kl_teacher_student(teacher, student):
    R, V = teacher.shape
    B, w = _launch_cfg(V)
    out = torch.empty(R, device=teacher.device, dtype=torch.float32)
    _kl_kernel[(R,)](teacher, student, out, teacher.stride(0), student.stride(0), V,
                     BLOCK=B, num_warps=w)
    return out


def top1_agreement(teacher, student):
    R, V = teacher.shape
    B, w = _launch_cfg(V)
    out = torch.empty(R, device=teacher.device, dtype=torch.float32)
    _top1_match_kernel[(R,)](teacher, student, out, teacher.stride(0), student.stride(0), V,
                             BLOCK=B, num_warps=w)
    return out.mean()


def z_loss(logits):
    R, V = logits.shape
    B, w = _launch_cfg(V)
    out = torch.empty(R, device=logits.device, dtype=torch.float32)
    _zloss_kernel[(R,)](logits, out, logits.stride(0), V, BLOCK=B, num_warps=w)
    return out.mean()


@dataclass
class DistillMetrics:
    ce: float
    kl: float
    agree: float
    zl: float


@torch.no_grad()
def eval_step(student_logits, teacher_logits, labels, alpha=0.5, smoothing=0.1):
    s = student_logits.reshape(-1, student_logits.shape[-1]).contiguous()
    t = teacher_logits.reshape(-1, teacher_logits.shape[-1]).contiguous()
    y = labels.reshape(-1).contiguous()
    ce = cross_entropy(s, y, smoothing)
    kl = kl_teacher_student(t, s)
    keep = y != -100
    kl = kl[keep].mean() if keep.any() else kl.new_zeros(())
    metrics = DistillMetrics(
        ce=ce.item(), kl=kl.item(), agree=top1_agreement(t, s).item(), zl=z_loss(s).item()
    )
    loss = alpha * ce + (1.0 - alpha) * kl
    return loss, metrics
