"""FP8 weight-only helpers and a small dense MLP path.

The quantized path stores weights as float8_e4m3 with one scale per output
column; activations stay in bf16.  The dense fallback is used for the first
layer where K is tiny and quantization does not pay off.
"""
import torch
import triton
import triton.language as tl

FP8_MAX = 448.0


@triton.jit
def _colwise_absmax_kernel(w_ptr, amax_ptr, K, N, stride_k, BLOCK_K: tl.constexpr, BLOCK_N: tl.constexpr):
    pid = tl.program_id(0)
    cols = pid * BLOCK_N + tl.arange(0, BLOCK_N)
    cmask = cols < N
    acc = tl.zeros([BLOCK_N], dtype=tl.float32)
    for k0 in range(0, K, BLOCK_K):
        ks = k0 + tl.arange(0, BLOCK_K)
        w = tl.load(w_ptr + ks[:, None] * stride_k + cols[None, :],
                    mask=(ks[:, None] < K) & cmask[None, :], other=0.0).to(tl.float32)
        acc = tl.maximum(acc, tl.max(tl.abs(w), axis=0))
    tl.store(amax_ptr + cols, acc, mask=cmask)


@triton.jit
def _quantize_fp8_kernel(w_ptr, scale_ptr, q_ptr, K, N, stride_k, fp8_max,
                         BLOCK_K: tl.constexpr, BLOCK_N: tl.constexpr):
    pk = tl.program_id(0)
    pn = tl.program_id(1)
    ks = pk * BLOCK_K + tl.arange(0, BLOCK_K)
    cols = pn * BLOCK_N + tl.arange(0, BLOCK_N)
    m = (ks[:, None] < K) & (cols[None, :] < N)
    w = tl.load(w_ptr + ks[:, None] * stride_k + cols[None, :], mask=m, other=0.0).to(tl.float32)
    s = tl.load(scale_ptr + cols, mask=cols < N, other=1.0)
    q = tl.clamp(w / s[None, :], -fp8_max, fp8_max)
    tl.store(q_ptr + ks[:, None] * stride_k + cols[None, :], q.to(q_ptr.dtype.element_ty), mask=m)


@triton.jit
def _dense_relu_kernel(a_ptr, b_ptr, c_ptr, M, N, K,
                       stride_am, stride_ak, stride_bk, stride_bn, stride_cm, stride_cn,
                       BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
                       GROUP_M: tl.constexpr):
    pid = tl.program_id(0)
    grid_m = tl.cdiv(M, BLOCK_M)
    grid_n = tl.cdiv(N, BLOCK_N)
    width = GROUP_M * grid_n
    first_m = (pid // width) * GROUP_M
    group_size = min(grid_m - first_m, GROUP_M)
    pid_m = first_m + (pid % group_size)
    pid_n = (pid % width) // group_size
    rm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    rk = tl.arange(0, BLOCK_K)
    a_tile = a_ptr + rm[:, None] * stride_am + rk[None, :] * stride_ak
    b_tile = b_ptr + rk[:, None] * stride_bk + rn[None, :] * stride_bn
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k0 in range(0, K, BLOCK_K):
        a = tl.load(a_tile, mask=(rm[:, None] < M) & (rk[None, :] + k0 < K), other=0.0)
        b = tl.load(b_tile, mask=(rk[:, None] + k0 < K) & (rn[None, :] < N), other=0.0)
        acc += tl.dot(a, b)
        a_tile += BLOCK_K * stride_ak
        b_tile += BLOCK_K * stride_bk
    acc = tl.maximum(acc, 0.0)
    tl.store(c_ptr + rm[:, None] * stride_cm + rn[None, :] * stride_cn,
             acc.to(c_ptr.dtype.element_ty), mask=(rm[:, None] < M) & (rn[None, :] < N))


@triton.jit
def _dequant_kernel(q_ptr, scale_ptr, out_ptr, K, N, stride_k, BLOCK_N: tl.constexpr):
    k = tl.program_id(0)
    cols = tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N)
    m = cols < N
    q = tl.load(q_ptr + k * stride_k + cols, mask=m, other=0.0).to(tl.float32)
    s = tl.load(scale_ptr + cols, mask=m, other=1.0)
    tl.store(out_ptr + k * stride_k + cols, (q * s).to(out_ptr.dtype.element_ty), mask=m)


def quantize_weight_fp8(w: torch.Tensor):
    """w: [K, N] -> (q [K, N] float8_e4m3fn, scale [N] fp32)."""
    w = w.contiguous()
    K, N = w.shape
    amax = torch.empty(N, device=w.device, dtype=torch.float32)
    _colwise_absmax_kernel[(triton.cdiv(N, 128),)](w, amax, K, N, w.stride(0), BLOCK_K=64, BLOCK_N=128)
    scale = torch.clamp(amax / FP8_MAX, min=1e-12)
    q = torch.empty((K, N), device=w.device, dtype=torch.float8_e4m3fn)
    grid = (triton.cdiv(K, 64), triton.cdiv(N, 128))
    _quantize_fp8_kernel[grid](w, scale, q, K, N, w.stride(0), FP8_MAX, BLOCK_K=64, BLOCK_N=128)
    return q, scale


def dequantize_weight(q: torch.Tensor, scale: torch.Tensor, dtype=torch.bfloat16):
    K, N = q.shape
    out = torch.empty((K, N), device=q.device, dtype=dtype)
    _dequant_kernel[(K, triton.cdiv(N, 256))](q, scale, out, K, N, q.stride(0), BLOCK_N=256)
    return out


def dense_relu(x: torch.Tensor, w: torch.Tensor) -> torch.Tensor:
    M, K = x.shape
    N = w.shape[1]
    out = torch.empty((M, N), device=x.device, dtype=x.dtype)
    BM, BN, BK = 64, 128, 32
    grid = (triton.cdiv(M, BM) * triton.cdiv(N, BN),)
    _dense_relu_kernel[grid](x, w, out, M, N, K,
                             x.stride(0), x.stride(1), w.stride(0), w.stride(1),
                             out.stride(0), out.stride(1),
                             BLOCK_M=BM, BLOCK_N=BN, BLOCK_K=BK, GROUP_M=8, num_warps=4, num_stages=3)
    return out


class QuantMLP(torch.nn.Module):
    def __init__(self, w1, w2):
        super().__init__()
        self.register_buffer("w1", w1)
        q, s = quantize_weight_fp8(w2)
        self.register_buffer("w2_q", q)
        self.register_buffer("w2_s", s)

    def forward(self, x):
        h = dense_relu(x, self.w1)
        w2 = dequantize_weight(self.w2_q, self.w2_s, dtype=h.dtype)
        return h @ w2


def fp8_roundtrip_error(w: torch.Tensor) -> float:
    """Relative Frobenius error introduced by fp8 weight quantization."""
    q, s = quantize_weight_fp8(w)
    w_hat = dequantize_weight(q, s, dtype=torch.float32)
    return (torch.linalg.norm(w.float() - w_hat) / torch.linalg.norm(w.float()).clamp(min=1e-12)).item()


def pack_for_inference(mlp_weights):
    """[(w1, w2), ...] -> list of QuantMLP modules."""
    return [QuantMLP(w1.contiguous(), w2.contiguous()) for (w1, w2) in mlp_weights]
