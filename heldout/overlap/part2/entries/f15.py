import torch
import triton
import triton.language as tl


@triton.jit
def channel_affine_kernel(
    x_ptr, scale_ptr, shift_ptr, y_ptr,
    C, L, lo, hi,
    HAS_SHIFT: tl.constexpr, CLAMP: tl.constexpr, BLOCK_L: tl.constexpr,
):
    row = tl.program_id(0)            # flattened (batch, channel)
    pid_l = tl.program_id(1)
    ch = row % C

    offs = pid_l * BLOCK_L + tl.arange(0, BLOCK_L)
    mask = offs < L
    x = tl.load(x_ptr + row * L + offs, mask=mask, other=0.0).to(tl.float32)

    y = x * tl.load(scale_ptr + ch).to(tl.float32)
    if HAS_SHIFT:
        y += tl.load(shift_ptr + ch).to(tl.float32)
    if CLAMP:
        y = tl.minimum(tl.maximum(y, lo), hi)

    tl.store(y_ptr + row * L + offs, y.to(y_ptr.dtype.element_ty), mask=mask)


def channel_affine(x, scale, shift=None, clamp=None):
    """Eval-mode BatchNorm1d folded into y = x * scale[c] + shift[c] on [B, C, L]."""
    x = x.contiguous()
    B, C, L = x.shape
    y = torch.empty_like(x)
    lo, hi = clamp if clamp is not None else (0.0, 0.0)
    BLOCK_L = 256
    grid = (B * C, triton.cdiv(L, BLOCK_L))
    channel_affine_kernel[grid](
        x, scale, shift if shift is not None else scale, y,
        C, L, float(lo), float(hi),
        HAS_SHIFT=shift is not None, CLAMP=clamp is not None, BLOCK_L=BLOCK_L, num_warps=4,
    )
    return y


class ModelNew(torch.nn.Module):
    def __init__(self, channels, eps=1e-5, affine=True):
        super().__init__()
        self.weight = torch.nn.Parameter(torch.ones(channels))
        self.bias = torch.nn.Parameter(torch.zeros(channels)) if affine else None
        self.register_buffer("running_mean", torch.zeros(channels))
        self.register_buffer("running_var", torch.ones(channels))
        self.eps = eps

    def forward(self, x):
        scale = (self.weight / torch.sqrt(self.running_var + self.eps)).contiguous()
        shift = None
        if self.bias is not None:
            shift = (self.bias - self.running_mean * scale).contiguous()
        return channel_affine(x, scale, shift)
