// W8A8 GEMM reference: C[m, n] = sa[m] * sb[n] * sum_k A[m, k] * B[n, k] (+ bias[n])
// A is int8 row major [M, K], B is int8 "NT" layout [N, K] (rows = output
// channels), accumulation in int32.  Blocked for L1 and unrolled by 4 in k.
#include <algorithm>
#include <cstddef>
#include <cstdint>

namespace q8 {

constexpr int MB = 32;
constexpr int NB = 64;
constexpr int KB = 256;

static inline int32_t dot_i8(const int8_t* a, const int8_t* b, int len)
{
    int32_t s0 = 0, s1 = 0, s2 = 0, s3 = 0;
    int k = 0;
    for (; k + 4 <= len; k += 4) {
        s0 += int32_t(a[k + 0]) * b[k + 0];
        s1 += int32_t(a[k + 1]) * b[k + 1];
        s2 += int32_t(a[k + 2]) * b[k + 2];
        s3 += int32_t(a[k + 3]) * b[k + 3];
    }
    for (; k < len; ++k) s0 += int32_t(a[k]) * b[k];
    return s0 + s1 + s2 + s3;
}

void gemm_w8a8(const int8_t* A, const float* sa, const int8_t* B, const float* sb,
               const float* bias, float* C, int M, int N, int K)
{
    static thread_local int32_t acc[MB][NB];
    for (int m0 = 0; m0 < M; m0 += MB) {
        const int mb = std::min(MB, M - m0);
        for (int n0 = 0; n0 < N; n0 += NB) {
            const int nb = std::min(NB, N - n0);
            for (int i = 0; i < mb; ++i)
                std::fill(acc[i], acc[i] + nb, 0);
            for (int k0 = 0; k0 < K; k0 += KB) {
                const int kb = std::min(KB, K - k0);
                for (int i = 0; i < mb; ++i) {
                    const int8_t* a = A + std::size_t(m0 + i) * K + k0;
                    for (int j = 0; j < nb; ++j)
                        acc[i][j] += dot_i8(a, B + std::size_t(n0 + j) * K + k0, kb);
                }
            }
            for (int i = 0; i < mb; ++i) {
                float* c = C + std::size_t(m0 + i) * N + n0;
                const float s = sa[m0 + i];
                for (int j = 0; j < nb; ++j) {
                    float v = float(acc[i][j]) * s * sb[n0 + j];
                    c[j] = bias ? v + bias[n0 + j] : v;
                }
            }
        }
    }
}

// symmetric per-row quantisation used to produce A / sa at runtime
void quantize_rows(const float* X, int8_t* Q, float* scale, int rows, int cols)
{
    for (int r = 0; r < rows; ++r) {
        const float* x = X + std::size_t(r) * cols;
        float amax = 0.f;
        for (int c = 0; c < cols; ++c) amax = std::max(amax, x[c] < 0 ? -x[c] : x[c]);
        const float s = amax > 0.f ? amax / 127.f : 1.f;
        const float inv = 1.f / s;
        for (int c = 0; c < cols; ++c) {
            float q = x[c] * inv;
            q = q > 127.f ? 127.f : (q < -127.f ? -127.f : q);
            Q[std::size_t(r) * cols + c] = int8_t(q >= 0 ? q + 0.5f : q - 0.5f);
        }
        scale[r] = s;
    }
}

}  // namespace q8
