// CPU reference for the blocked GEMM + ReLU.  Tiles are visited in the same
// grouped order as the device kernel, and every (BLOCK_M x BLOCK_N) output tile
// is accumulated in a local fp32 buffer over BLOCK_K-wide slices of K.
#include <algorithm>
#include <cstdint>
#include <vector>

struct GemmTiles {
    int block_m = 64;
    int block_n = 64;
    int block_k = 32;
    int group_m = 8;
};

static inline int cdiv(int a, int b) { return (a + b - 1) / b; }

static void grouped_tile(int pid, int M, int N, const GemmTiles &t, int &pid_m, int &pid_n)
{
    int grid_m = cdiv(M, t.block_m);
    int grid_n = cdiv(N, t.block_n);
    int width = t.group_m * grid_n;
    int group_id = pid / width;
    int first_m = group_id * t.group_m;
    int group_size = std::min(grid_m - first_m, t.group_m);
    pid_m = first_m + (pid % group_size);
    pid_n = (pid % width) / group_size;
}

void matmul_relu_tiled(const float *A, const float *B, float *C,
                       int M, int N, int K,
                       int64_t lda, int64_t ldb, int64_t ldc,
                       const GemmTiles &t = GemmTiles())
{
    const int BM = t.block_m, BN = t.block_n, BK = t.block_k;
    std::vector<float> acc(static_cast<size_t>(BM) * BN);
    std::vector<float> a_tile(static_cast<size_t>(BM) * BK);
    std::vector<float> b_tile(static_cast<size_t>(BK) * BN);

    const int n_tiles = cdiv(M, BM) * cdiv(N, BN);
    for (int pid = 0; pid < n_tiles; ++pid) {
        int pid_m, pid_n;
        grouped_tile(pid, M, N, t, pid_m, pid_n);
        const int m0 = pid_m * BM;
        const int n0 = pid_n * BN;
        std::fill(acc.begin(), acc.end(), 0.0f);

        for (int k0 = 0; k0 < K; k0 += BK) {
            // masked loads: out-of-range elements read as zero
            for (int i = 0; i < BM; ++i)
                for (int kk = 0; kk < BK; ++kk)
                    a_tile[i * BK + kk] = (m0 + i < M && k0 + kk < K) ? A[(m0 + i) * lda + k0 + kk] : 0.0f;
            for (int kk = 0; kk < BK; ++kk)
                for (int j = 0; j < BN; ++j)
                    b_tile[kk * BN + j] = (k0 + kk < K && n0 + j < N) ? B[(k0 + kk) * ldb + n0 + j] : 0.0f;

            for (int i = 0; i < BM; ++i) {
                float *acc_row = &acc[static_cast<size_t>(i) * BN];
                for (int kk = 0; kk < BK; ++kk) {
                    const float a = a_tile[i * BK + kk];
                    const float *b_row = &b_tile[static_cast<size_t>(kk) * BN];
                    for (int j = 0; j < BN; ++j)
                        acc_row[j] += a * b_row[j];
                }
            }
        }

        for (int i = 0; i < BM && m0 + i < M; ++i)
            for (int j = 0; j < BN && n0 + j < N; ++j)
                C[(m0 + i) * ldc + n0 + j] = std::max(acc[static_cast<size_t>(i) * BN + j], 0.0f);
    }
}
