// ambiguous: a port of matmul, whose op stream (LOAD LOAD MUL REDUCE_SUM STORE) is any dot product's (rowwise_dot's and the independent conv1d.c's too)
// Tiled matmul ported from Triton: BLOCK_M x BLOCK_N output tiles, a K loop in BLOCK_K steps.
#include <algorithm>

void matmul_kernel(const float* a, const float* b, float* c, int M, int N, int K,
                   int stride_am, int stride_ak, int stride_bk, int stride_bn, int stride_cm, int stride_cn) {
    const int BLOCK_M = 16, BLOCK_N = 16, BLOCK_K = 16;
    for (int pid_m = 0; pid_m < (M + BLOCK_M - 1) / BLOCK_M; ++pid_m) {
        for (int pid_n = 0; pid_n < (N + BLOCK_N - 1) / BLOCK_N; ++pid_n) {
            for (int i = pid_m * BLOCK_M; i < std::min(M, (pid_m + 1) * BLOCK_M); ++i) {
                for (int j = pid_n * BLOCK_N; j < std::min(N, (pid_n + 1) * BLOCK_N); ++j) {
                    float acc = 0.0f;
                    for (int k0 = 0; k0 < K; k0 += BLOCK_K) {
                        for (int k = k0; k < std::min(K, k0 + BLOCK_K); ++k) {
                            acc += a[i * stride_am + k * stride_ak] * b[k * stride_bk + j * stride_bn];
                        }
                    }
                    c[i * stride_cm + j * stride_cn] = acc;
                }
            }
        }
    }
}
