// Masked mean pooling, CPU path mirroring the GPU tiling so results match
// bit-for-bit in accumulation order within a tile.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace pool {

struct Strides3 { std::ptrdiff_t b, l, d; };
struct Strides2 { std::ptrdiff_t b, l; };

template <int BLOCK_L = 32, int BLOCK_D = 128>
void masked_mean_pool(const float* x, const int8_t* mask, float* out,
                      int batch, int seq_len, int hidden,
                      Strides3 sx, Strides2 sm, Strides2 so)
{
    const int n_dblk = (hidden + BLOCK_D - 1) / BLOCK_D;
    for (int pid_b = 0; pid_b < batch; ++pid_b) {
        for (int pid_d = 0; pid_d < n_dblk; ++pid_d) {
            float acc[BLOCK_D] = {0.0f};
            float cnt[BLOCK_L] = {0.0f};
            const int d0 = pid_d * BLOCK_D;

            for (int l0 = 0; l0 < seq_len; l0 += BLOCK_L) {
                float m[BLOCK_L];
                for (int i = 0; i < BLOCK_L; ++i) {
                    int l = l0 + i;
                    m[i] = (l < seq_len) ? float(mask[pid_b * sm.b + l * sm.l]) : 0.0f;
                }
                // tl.sum(x * m[:, None], axis=0)
                for (int j = 0; j < BLOCK_D; ++j) {
                    int d = d0 + j;
                    if (d >= hidden) continue;
                    float s = 0.0f;
                    for (int i = 0; i < BLOCK_L; ++i) {
                        int l = l0 + i;
                        float xv = (l < seq_len) ? x[pid_b * sx.b + l * sx.l + d * sx.d] : 0.0f;
                        s += xv * m[i];
                    }
                    acc[j] += s;
                }
                for (int i = 0; i < BLOCK_L; ++i)
                    cnt[i] += m[i];
            }

            float total = 0.0f;
            for (int i = 0; i < BLOCK_L; ++i)
                total += cnt[i];
            const float denom = std::max(total, 1.0f);
            for (int j = 0; j < BLOCK_D; ++j) {
                int d = d0 + j;
                if (d < hidden)
                    out[pid_b * so.b + d * so.l] = acc[j] / denom;
            }
        }
    }
}

// contiguous convenience entry point
void masked_mean_pool_contig(const float* x, const int8_t* mask, float* out,
                             int batch, int seq_len, int hidden)
{
    Strides3 sx{std::ptrdiff_t(seq_len) * hidden, hidden, 1};
    Strides2 sm{seq_len, 1};
    Strides2 so{hidden, 1};
    masked_mean_pool<>(x, mask, out, batch, seq_len, hidden, sx, sm, so);
}

}  // namespace pool
