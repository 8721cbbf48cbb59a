"""Conformer-style convolution module, Triton path.

pointwise(2C) -> GLU -> depthwise conv -> BatchNorm(eval) -> SiLU -> pointwise(C)
The pointwise convs stay as cuBLAS matmuls; everything else is fused here.
"""
import torch
import triton
import triton.language as tl


@triton.jit
def _glu_channels(X, Y, C, L, BLOCK: tl.constexpr):
    # X: [B, 2C, L] -> Y: [B, C, L], gate on the second half
    bc = tl.program_id(0)
    b = bc // C
    c = bc % C
    t = tl.program_id(1) * BLOCK + tl.arange(0, BLOCK)
    m = t < L
    a = tl.load(X + (b * 2 * C + c) * L + t, mask=m, other=0.0).to(tl.float32)
    g = tl.load(X + (b * 2 * C + C + c) * L + t, mask=m, other=0.0).to(tl.float32)
    tl.store(Y + bc * L + t, (a * tl.sigmoid(g)).to(Y.dtype.element_ty), mask=m)


@triton.jit
def _dw_bn_silu(x_ptr, w_ptr, b_ptr, bn_scale, bn_shift, y_ptr,
                C, L_in, L_out, padding,
                KSIZE: tl.constexpr, BLOCK_L: tl.constexpr):
    row = tl.program_id(0)
    pid_l = tl.program_id(1)
    ch = row % C
    offs = pid_l * BLOCK_L + tl.arange(0, BLOCK_L)
    out_mask = offs < L_out
    x_row = x_ptr + row * L_in
    base = offs - padding

    acc = tl.zeros([BLOCK_L], dtype=tl.float32)
    for k in tl.static_range(KSIZE):
        pos = base + k
        valid = out_mask & (pos >= 0) & (pos < L_in)
        xv = tl.load(x_row + pos, mask=valid, other=0.0).to(tl.float32)
        wk = tl.load(w_ptr + ch * KSIZE + k).to(tl.float32)
        acc += xv * wk
    acc += tl.load(b_ptr + ch).to(tl.float32)

    # folded eval-mode batchnorm, then SiLU
    acc = acc * tl.load(bn_scale + ch) + tl.load(bn_shift + ch)
    acc = acc * tl.sigmoid(acc)
    tl.store(y_ptr + row * L_out + offs, acc.to(y_ptr.dtype.element_ty), mask=out_mask)


@triton.jit
def _masked_fill_time(X, LENS, C, L, BLOCK: tl.constexpr):
    # zero frames past each utterance's length so padding doesn't bleed into the conv
    bc = tl.program_id(0)
    b = bc // C
    t = tl.program_id(1) * BLOCK + tl.arange(0, BLOCK)
    n = tl.load(LENS + b)
    m = (t < L) & (t >= n)
    tl.store(X + bc * L + t, tl.zeros([BLOCK], dtype=X.dtype.element_ty), mask=m)


def fold_bn(bn: torch.nn.BatchNorm1d):
    scale = bn.weight / torch.sqrt(bn.running_var + bn.eps)
    shift = bn.bias - bn.running_mean * scale
    return scale.float().contiguous(), shift.float().contiguous()


class ConvModule(torch.nn.Module):
    def __init__(self, dim, kernel_size=31):
        super().__init__()
        assert kernel_size % 2 == 1
        self.pw1 = torch.nn.Conv1d(dim, 2 * dim, 1)
        self.dw = torch.nn.Conv1d(dim, dim, kernel_size, padding=kernel_size // 2, groups=dim)
        self.bn = torch.nn.BatchNorm1d(dim)
        self.pw2 = torch.nn.Conv1d(dim, dim, 1)
        self.k = kernel_size

    def forward(self, x, lengths=None):
        # x: [B, L, C]
        B, L, C = x.shape
        h = self.pw1(x.transpose(1, 2)).contiguous()              # [B, 2C, L]
        g = torch.empty((B, C, L), device=x.device, dtype=x.dtype)
        BLOCK = 256
        _glu_channels[(B * C, triton.cdiv(L, BLOCK))](h, g, C, L, BLOCK=BLOCK)
        if lengths is not None:
            _masked_fill_time[(B * C, triton.cdiv(L, BLOCK))](g, lengths.to(torch.int32), C, L,
                                                               BLOCK=BLOCK)
        if self.training:
            y = torch.nn.functional.silu(self.bn(self.dw(g)))
        else:
            scale, shift = fold_bn(self.bn)
            y = torch.empty_like(g)
            w = self.dw.weight.reshape(C, self.k).contiguous()
            _dw_bn_silu[(B * C, triton.cdiv(L, BLOCK))](
                g, w, self.dw.bias, scale, shift, y, C, L, L, self.k // 2,
                KSIZE=self.k, BLOCK_L=BLOCK, num_warps=4)
        return self.pw2(y).transpose(1, 2)


def _reference(mod: ConvModule, x):
    h = torch.nn.functional.glu(mod.pw1(x.transpose(1, 2)), dim=1)
    y = torch.nn.functional.silu(mod.bn(mod.dw(h)))
    return mod.pw2(y).transpose(1, 2)


@torch.no_grad()
def self_check(dim=64, L=200, B=2, device="cuda"):
    mod = ConvModule(dim).to(device).eval()
    x = torch.randn(B, L, dim, device=device)
    torch.testing.assert_close(mod(x), _reference(mod, x), atol=1e-4, rtol=1e-4)
