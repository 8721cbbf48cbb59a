import torch
import triton
import triton.language as tl


@triton.jit
def transpose_axpby_kernel(
    a_ptr, c_ptr, out_ptr, M, N, alpha, beta,
    stride_ab, stride_am, stride_an,
    stride_cb, stride_cn, stride_cm,
    stride_ob, stride_on, stride_om,
    TILE_M: tl.constexpr, TILE_N: tl.constexpr, GROUP_M: tl.constexpr,
):
    pid = tl.program_id(0)
    bid = tl.program_id(1)
    num_pid_m = tl.cdiv(M, TILE_M)
    num_pid_n = tl.cdiv(N, TILE_N)
    width = GROUP_M * num_pid_n
    first_m = (pid // width) * GROUP_M
    gsize = tl.minimum(num_pid_m - first_m, GROUP_M)
    pid_m = first_m + (pid % gsize)
    pid_n = (pid % width) // gsize

    rn = pid_n * TILE_N + tl.arange(0, TILE_N)
    rm = pid_m * TILE_M + tl.arange(0, TILE_M)
    # read A already transposed: rows indexed by n, columns by m
    in_range = (rn < N)[:, None] & (rm < M)[None, :]
    at = tl.load(a_ptr + bid * stride_ab + rn[:, None] * stride_an + rm[None, :] * stride_am,
                 mask=in_range, other=0.0).to(tl.float32)
    c = tl.load(c_ptr + bid * stride_cb + rn[:, None] * stride_cn + rm[None, :] * stride_cm,
                mask=in_range, other=0.0).to(tl.float32)
    res = alpha * at + beta * c
    tl.store(out_ptr + bid * stride_ob + rn[:, None] * stride_on + rm[None, :] * stride_om,
             res.to(out_ptr.dtype.element_ty), mask=in_range)


def transpose_axpby(a, c, alpha=1.0, beta=1.0):
    B, M, N = a.shape
    assert c.shape == (B, N, M)
    out = torch.empty((B, N, M), device=a.device, dtype=a.dtype)
    TILE_M, TILE_N, GROUP_M = 64, 64, 8
    grid = (triton.cdiv(M, TILE_M) * triton.cdiv(N, TILE_N), B)
    transpose_axpby_kernel[grid](
        a, c, out, M, N, float(alpha), float(beta),
        a.stride(0), a.stride(1), a.stride(2),
        c.stride(0), c.stride(1), c.stride(2),
        out.stride(0), out.stride(1), out.stride(2),
        TILE_M=TILE_M, TILE_N=TILE_N, GROUP_M=GROUP_M, num_warps=4,
    )
    return out


class ModelNew(torch.nn.Module):
    def forward(self, a, c):
        return transpose_axpby(a, c)
