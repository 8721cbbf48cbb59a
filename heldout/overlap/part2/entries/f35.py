"""Layout helpers used by the vision backbone.

Small Triton kernels for the reshapes that torch would otherwise do with
several copies: patchify, NHWC<->NCHW, padding, and the residual paths that
need a transpose on one side.
"""
import torch
import triton
import triton.language as tl


@triton.jit
def _nchw_to_nhwc(X, Y, C, HW, BLOCK_C: tl.constexpr, BLOCK_HW: tl.constexpr):
    n = tl.program_id(2)
    c = tl.program_id(0) * BLOCK_C + tl.arange(0, BLOCK_C)
    p = tl.program_id(1) * BLOCK_HW + tl.arange(0, BLOCK_HW)
    m = (c[:, None] < C) & (p[None, :] < HW)
    v = tl.load(X + n * C * HW + c[:, None] * HW + p[None, :], mask=m)
    tl.store(Y + n * C * HW + p[None, :] * C + c[:, None], v, mask=m)


def nchw_to_nhwc(x):
    N, C, H, W = x.shape
    x = x.contiguous()
    y = torch.empty((N, H, W, C), device=x.device, dtype=x.dtype)
    grid = (triton.cdiv(C, 32), triton.cdiv(H * W, 64), N)
    _nchw_to_nhwc[grid](x, y, C, H * W, BLOCK_C=32, BLOCK_HW=64)
    return y


@triton.jit
def _patchify(X, Y, C, H, W, P, n_pw, BLOCK: tl.constexpr):
    # Y[n, patch, (c, py, px)]
    n = tl.program_id(1)
    patch = tl.program_id(0)
    ph = patch // n_pw
    pw = patch % n_pw
    k = tl.arange(0, BLOCK)
    PP = P * P
    c = k // PP
    r = k % PP
    py = r // P
    px = r % P
    m = k < C * PP
    src = X + n * C * H * W + c * H * W + (ph * P + py) * W + (pw * P + px)
    v = tl.load(src, mask=m)
    n_patches = (H // P) * n_pw
    tl.store(Y + (n * n_patches + patch) * C * PP + k, v, mask=m)


def patchify(x, patch):
    N, C, H, W = x.shape
    assert H % patch == 0 and W % patch == 0
    n_ph, n_pw = H // patch, W // patch
    y = torch.empty((N, n_ph * n_pw, C * patch * patch), device=x.device, dtype=x.dtype)
    BLOCK = triton.next_power_of_2(C * patch * patch)
    _patchify[(n_ph * n_pw, N)](x.contiguous(), y, C, H, W, patch, n_pw, BLOCK=BLOCK)
    return y


@triton.jit
def _pad2d_reflect(X, Y, H, W, pad, OH, OW, BLOCK: tl.constexpr):
    plane = tl.program_id(1)
    o = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = o < OH * OW
    oy = o // OW - pad
    ox = o % OW - pad
    iy = tl.where(oy < 0, -oy, tl.where(oy >= H, 2 * H - 2 - oy, oy))
    ix = tl.where(ox < 0, -ox, tl.where(ox >= W, 2 * W - 2 - ox, ox))
    v = tl.load(X + plane * H * W + iy * W + ix, mask=m)
    tl.store(Y + plane * OH * OW + o, v, mask=m)


def pad_reflect(x, pad):
    N, C, H, W = x.shape
    OH, OW = H + 2 * pad, W + 2 * pad
    y = torch.empty((N, C, OH, OW), device=x.device, dtype=x.dtype)
    BLOCK = 1024
    _pad2d_reflect[(triton.cdiv(OH * OW, BLOCK), N * C)](x.contiguous(), y, H, W, pad, OH, OW,
                                                         BLOCK=BLOCK)
    return y


@triton.jit
def _residual_t_kernel(a_ptr, c_ptr, out_ptr, M, N,
                       stride_ab, stride_am, stride_an,
                       stride_cb, stride_cn, stride_cm,
                       stride_ob, stride_on, stride_om,
                       TILE_M: tl.constexpr, TILE_N: tl.constexpr, GROUP_M: tl.constexpr):
    pid = tl.program_id(0)
    bid = tl.program_id(1)
    num_pid_m = tl.cdiv(M, TILE_M)
    num_pid_n = tl.cdiv(N, TILE_N)
    num_pid_in_group = GROUP_M * num_pid_n
    first_pid_m = (pid // num_pid_in_group) * GROUP_M
    group_size_m = tl.minimum(num_pid_m - first_pid_m, GROUP_M)
    pid_m = first_pid_m + (pid % group_size_m)
    pid_n = (pid % num_pid_in_group) // group_size_m

    rm = pid_m * TILE_M + tl.arange(0, TILE_M)
    rn = pid_n * TILE_N + tl.arange(0, TILE_N)
    a = tl.load(a_ptr + bid * stride_ab + rm[:, None] * stride_am + rn[None, :] * stride_an,
                mask=(rm[:, None] < M) & (rn[None, :] < N), other=0.0)
    o_mask = (rn[:, None] < N) & (rm[None, :] < M)
    c = tl.load(c_ptr + bid * stride_cb + rn[:, None] * stride_cn + rm[None, :] * stride_cm,
                mask=o_mask, other=0.0)
    res = tl.trans(a).to(tl.float32) + c.to(tl.float32)
    tl.store(out_ptr + bid * stride_ob + rn[:, None] * stride_on + rm[None, :] * stride_om,
             res.to(out_ptr.dtype.element_ty), mask=o_mask)


def residual_transposed(tokens, skip):
    """tokens: [B, C, L] channel-first; skip: [B, L, C]. Returns skip + tokens^T."""
    B, M, N = tokens.shape
    out = torch.empty((B, N, M), device=tokens.device, dtype=tokens.dtype)
    grid = (triton.cdiv(M, 64) * triton.cdiv(N, 64), B)
    _residual_t_kernel[grid](tokens, skip, out, M, N,
                             *tokens.stride(), *skip.stride(), *out.stride(),
                             TILE_M=64, TILE_N=64, GROUP_M=8, num_warps=4)
    return out


def unpatchify(y, C, H, W, patch):
    N = y.shape[0]
    n_ph, n_pw = H // patch, W // patch
    y = y.view(N, n_ph, n_pw, C, patch, patch)
    return y.permute(0, 3, 1, 4, 2, 5).reshape(N, C, H, W)
