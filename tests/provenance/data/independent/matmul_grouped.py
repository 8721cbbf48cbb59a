"""Matmul in the style of the Triton tutorial: grouped program ordering for L2 reuse, pointer increments."""
import torch
import triton
import triton.language as tl


@triton.jit
def mm_grouped_kernel(A, B, C, M, N, K, lda, ldb, ldc,
                      BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr, GROUP_M: tl.constexpr):
    pid = tl.program_id(axis=0)
    num_pid_m = tl.cdiv(M, BM)
    num_pid_n = tl.cdiv(N, BN)
    num_pid_in_group = GROUP_M * num_pid_n
    group_id = pid // num_pid_in_group
    first_pid_m = group_id * GROUP_M
    group_size_m = min(num_pid_m - first_pid_m, GROUP_M)
    pid_m = first_pid_m + ((pid % num_pid_in_group) % group_size_m)
    pid_n = (pid % num_pid_in_group) // group_size_m
    rm = (pid_m * BM + tl.arange(0, BM)) % M
    rn = (pid_n * BN + tl.arange(0, BN)) % N
    rk = tl.arange(0, BK)
    a_ptrs = A + rm[:, None] * lda + rk[None, :]
    b_ptrs = B + rk[:, None] * ldb + rn[None, :]
    accumulator = tl.zeros((BM, BN), dtype=tl.float32)
    for kk in range(0, tl.cdiv(K, BK)):
        a = tl.load(a_ptrs, mask=rk[None, :] < K - kk * BK, other=0.0)
        b = tl.load(b_ptrs, mask=rk[:, None] < K - kk * BK, other=0.0)
        accumulator = tl.dot(a, b, accumulator)
        a_ptrs += BK
        b_ptrs += BK * ldb
    c = accumulator.to(tl.float16)
    cm = pid_m * BM + tl.arange(0, BM)
    cn = pid_n * BN + tl.arange(0, BN)
    tl.store(C + cm[:, None] * ldc + cn[None, :], c, mask=(cm[:, None] < M) & (cn[None, :] < N))


def matmul(a, b):
    M, K = a.shape
    _, N = b.shape
    c = torch.empty((M, N), device=a.device, dtype=torch.float16)
    grid = lambda META: (triton.cdiv(M, META["BM"]) * triton.cdiv(N, META["BN"]),)
    mm_grouped_kernel[grid](a, b, c, M, N, K, a.stride(0), b.stride(0), c.stride(0), BM=64, BN=64, BK=32, GROUP_M=8)
    return c
