// Host version of the tiled causal QK^T logits kernel.
// q, k: [Z, L, D] with explicit strides; s: [Z, L, L] float.
#include <cmath>
#include <cstddef>
#include <limits>

namespace attn {

constexpr int BLOCK_M = 64;
constexpr int BLOCK_N = 64;
constexpr int BLOCK_D = 64;

struct Strides { std::ptrdiff_t z, l, d; };

template <typename T>
void qk_causal_scores(const T* q, const T* k, float* s,
                      int Z, int seq_len, int head_dim, float sm_scale,
                      Strides sq, Strides sk, Strides ss)
{
    const float ninf = -std::numeric_limits<float>::infinity();
    const int grid_m = (seq_len + BLOCK_M - 1) / BLOCK_M;
    const int grid_n = (seq_len + BLOCK_N - 1) / BLOCK_N;

    static thread_local float acc[BLOCK_M][BLOCK_N];

    for (int z = 0; z < Z; ++z) {
        const T* qb = q + z * sq.z;
        const T* kb = k + z * sk.z;
        for (int start_m = 0; start_m < grid_m; ++start_m) {
            for (int start_n = 0; start_n < grid_n; ++start_n) {
                for (int i = 0; i < BLOCK_M; ++i)
                    for (int j = 0; j < BLOCK_N; ++j)
                        acc[i][j] = 0.0f;

                // tile entirely above the diagonal: skip the products
                if (start_n * BLOCK_N < (start_m + 1) * BLOCK_M) {
                    for (int d0 = 0; d0 < head_dim; d0 += BLOCK_D) {
                        for (int i = 0; i < BLOCK_M; ++i) {
                            const int m = start_m * BLOCK_M + i;
                            if (m >= seq_len) continue;
                            for (int j = 0; j < BLOCK_N; ++j) {
                                const int n = start_n * BLOCK_N + j;
                                if (n >= seq_len) continue;
                                float dot = 0.0f;
                                for (int dd = d0; dd < d0 + BLOCK_D && dd < head_dim; ++dd)
                                    dot += float(qb[m * sq.l + dd * sq.d]) * float(kb[n * sk.l + dd * sk.d]);
                                acc[i][j] += dot;
                            }
                        }
                    }
                }

                for (int i = 0; i < BLOCK_M; ++i) {
                    const int m = start_m * BLOCK_M + i;
                    if (m >= seq_len) continue;
                    for (int j = 0; j < BLOCK_N; ++j) {
                        const int n = start_n * BLOCK_N + j;
                        if (n >= seq_len) continue;
                        float v = acc[i][j] * sm_scale;
                        s[z * ss.z + m * ss.l + n * ss.d] = (m >= n) ? v : ninf;
                    }
                }
            }
        }
    }
}

// q, k: [B, H, L, D] contiguous
void attention_scores(const float* q, const float* k, float* s, int B, int H, int L, int D)
{
    Strides sq{std::ptrdiff_t(L) * D, D, 1};
    Strides ss{std::ptrdiff_t(L) * L, L, 1};
    qk_causal_scores(q, k, s, B * H, L, D, 1.0f / std::sqrt(float(D)), sq, sq, ss);
}

}  // namespace attn
