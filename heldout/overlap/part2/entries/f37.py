import torch
import triton
import triton.language as tl


@triton.jit
def _tile_swizzle(pid, num_pid_m, num_pid_n, GROUP_M: tl.constexpr):
    # grouped ordering so neighbouring programs share rows of A
    num_pid_in_group = GROUP_M * num_pid_n
    group_id = pid // num_pid_in_group
    first_pid_m = group_id * GROUP_M
    group_size_m = tl.minimum(num_pid_m - first_pid_m, GROUP_M)
    pid_m = first_pid_m + (pid % group_size_m)
    pid_n = (pid % num_pid_in_group) // group_size_m
    return pid_m, pid_n


@triton.jit
def batched_matmul_kernel(
    a_ptr, b_ptr, out_ptr, M, N, K,
    stride_ab, stride_am, stride_ak,
    stride_bb, stride_bk, stride_bn,
    stride_ob, stride_om, stride_on,
    TILE_M: tl.constexpr, TILE_N: tl.constexpr, TILE_K: tl.constexpr, GROUP_M: tl.constexpr,
):
    pid = tl.program_id(0)
    bid = tl.program_id(1)
    pid_m, pid_n = _tile_swizzle(pid, tl.cdiv(M, TILE_M), tl.cdiv(N, TILE_N), GROUP_M)

    rm = pid_m * TILE_M + tl.arange(0, TILE_M)
    rn = pid_n * TILE_N + tl.arange(0, TILE_N)
    rk = tl.arange(0, TILE_K)
    a_ptrs = a_ptr + bid * stride_ab + rm[:, None] * stride_am + rk[None, :] * stride_ak
    b_ptrs = b_ptr + bid * stride_bb + rk[:, None] * stride_bk + rn[None, :] * stride_bn

    acc = tl.zeros([TILE_M, TILE_N], dtype=tl.float32)
    for k0 in range(0, K, TILE_K):
        a = tl.load(a_ptrs, mask=(rm[:, None] < M) & (rk[None, :] + k0 < K), other=0.0)
        b = tl.load(b_ptrs, mask=(rk[:, None] + k0 < K) & (rn[None, :] < N), other=0.0)
        acc += tl.dot(a, b)
        a_ptrs += TILE_K * stride_ak
        b_ptrs += TILE_K * stride_bk

    o_mask = (rm[:, None] < M) & (rn[None, :] < N)
    tl.store(out_ptr + bid * stride_ob + rm[:, None] * stride_om + rn[None, :] * stride_on,
             acc.to(out_ptr.dtype.element_ty), mask=o_mask)


def batched_matmul(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    """out[i] = a[i] @ b[i]; a is [B, M, K], b is [B, K, N]."""
    B, M, K = a.shape
    assert b.shape[0] == B and b.shape[1] == K
    N = b.shape[2]
    out = torch.empty((B, M, N), device=a.device, dtype=a.dtype)
    TILE_M, TILE_N, TILE_K, GROUP_M = 64, 64, 32, 8
    grid = (triton.cdiv(M, TILE_M) * triton.cdiv(N, TILE_N), B)
    batched_matmul_kernel[grid](
        a, b, out, M, N, K,
        a.stride(0), a.stride(1), a.stride(2),
        b.stride(0), b.stride(1), b.stride(2),
        out.stride(0), out.stride(1), out.stride(2),
        TILE_M=TILE_M, TILE_N=TILE_N, TILE_K=TILE_K, GROUP_M=GROUP_M,
        num_warps=4, num_stages=2,
    )
    return out


class ModelNew(torch.nn.Module):
    def forward(self, a, b):
        return batched_matmul(a, b)
