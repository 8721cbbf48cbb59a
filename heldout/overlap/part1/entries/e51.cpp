// Host-side softmax used by the CPU fallback path.  It keeps the same
// per-lane running (max, sum) layout as the GPU kernel so results match
// bit-for-bit-ish across backends: LANES independent accumulators, merged
// once per row.
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <vector>

namespace cpu {

template <int LANES = 256>
void softmax_lastdim(const float *in, float *out, int64_t n_rows, int64_t n_cols,
                     int64_t in_stride, int64_t out_stride)
{
    constexpr float kNegInf = -std::numeric_limits<float>::infinity();
    float m_lane[LANES];
    float d_lane[LANES];

    for (int64_t row = 0; row < n_rows; ++row) {
        const float *src = in + row * in_stride;
        float *dst = out + row * out_stride;

        std::fill(m_lane, m_lane + LANES, kNegInf);
        std::fill(d_lane, d_lane + LANES, 0.0f);

        for (int64_t off = 0; off < n_cols; off += LANES) {
            for (int l = 0; l < LANES; ++l) {
                int64_t j = off + l;
                float x = j < n_cols ? src[j] : kNegInf;
                float m_new = std::max(m_lane[l], x);
                float alpha = (m_new == kNegInf) ? 0.0f : std::exp(m_lane[l] - m_new);
                float p = (m_new == kNegInf) ? 0.0f : std::exp(x - m_new);
                d_lane[l] = d_lane[l] * alpha + p;
                m_lane[l] = m_new;
            }
        }

        float m = *std::max_element(m_lane, m_lane + LANES);
        float d = 0.0f;
        for (int l = 0; l < LANES; ++l)
            d += d_lane[l] * std::exp(m_lane[l] - m);

        for (int64_t off = 0; off < n_cols; off += LANES) {
            int64_t lim = std::min<int64_t>(LANES, n_cols - off);
            for (int64_t l = 0; l < lim; ++l) {
                int64_t j = off + l;
                dst[j] = std::exp(src[j] - m) / d;
            }
        }
    }
}

inline int64_t pick_lanes(int64_t n_cols)
{
    int64_t p = 1;
    while (p < n_cols && p < 2048)
        p <<= 1;
    return p;
}

void softmax(const float *in, float *out, int64_t n_rows, int64_t n_cols)
{
    switch (pick_lanes(n_cols)) {
    case 1: case 2: case 4: case 8: case 16: case 32: case 64:
        softmax_lastdim<64>(in, out, n_rows, n_cols, n_cols, n_cols);
        break;
    case 128: case 256:
        softmax_lastdim<256>(in, out, n_rows, n_cols, n_cols, n_cols);
        break;
    case 512: case 1024:
        softmax_lastdim<1024>(in, out, n_rows, n_cols, n_cols, n_cols);
        break;
    default:
        softmax_lastdim<2048>(in, out, n_rows, n_cols, n_cols, n_cols);
        break;
    }
}

}  // namespace cpu
