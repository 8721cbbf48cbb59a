import torch
import triton
import triton.language as tl


@triton.jit
def _rowwise_kl(a_logits, b_logits, res, a_pitch, b_pitch, V, VB: tl.constexpr):
    i = tl.program_id(0)
    j = tl.arange(0, VB)
    inb = j < V
    za = tl.load(a_logits + i * a_pitch + j, mask=inb, other=-float("inf")).to(tl.float32)
    zb = tl.load(b_logits + i * b_pitch + j, mask=inb, other=-float("inf")).to(tl.float32)
    ma = tl.max(za, axis=0)
    la = za - (tl.log(tl.sum(tl.exp(za - ma), axis=0)) + ma)
    mb = tl.max(zb, axis=0)
    lb = zb - (tl.log(tl.sum(tl.exp(zb - mb), axis=0)) + mb)
    contrib = tl.where(inb, tl.exp(la) * (la - lb), 0.0)
    tl.store(res + i, tl.sum(contrib, axis=0))


def rowwise_kl(a_logits, b_logits):
    """KL(softmax(a) || softmax(b)) for each row; returns float32 [rows]."""
    if a_logits.shape != b_logits.shape or a_logits.ndim != 2:
        raise ValueError("expected two matrices of equal shape")
    a_logits, b_logits = a_logits.contiguous(), b_logits.contiguous()
    n, V = a_logits.shape
    res = torch.empty(n, device=a_logits.device, dtype=torch.float32)
    VB = triton.next_power_of_2(V)
    if VB > 32768:
        raise ValueError("vocab too large")
    warps = 2 if VB < 1024 else (4 if VB < 4096 else 8)
    _rowwise_kl[(n,)](a_logits, b_logits, res, a_logits.stride(0), b_logits.stride(0), V,
                      VB=VB, num_warps=warps)
    return res


class RowKL(torch.nn.Module):
    def forward(self, a_logits, b_logits):
        return rowwise_kl(a_logits, b_logits)
