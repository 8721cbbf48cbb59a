// rotary.cpp -- CPU implementation of NeoX-style rotary embedding.
// x, out: [T, H, D] with arbitrary token/head strides, last dim contiguous.
// cos_tab, sin_tab: [max_pos, D/2].
#include <cstdint>
#include <cstddef>
#include <vector>
#include <cmath>
#include <algorithm>

namespace rope {

struct Strides {
    int64_t xt, xh, ot, oh, cs;
};

template <typename T>
void apply_neox(const T *x, T *out, const int64_t *pos,
                const float *cos_tab, const float *sin_tab,
                int64_t n_tok, int64_t n_heads, int64_t half_dim,
                const Strides &st, int64_t heads_per_block = 16)
{
    const int64_t n_hblk = (n_heads + heads_per_block - 1) / heads_per_block;
    std::vector<float> c(half_dim), s(half_dim);

    for (int64_t tok = 0; tok < n_tok; ++tok) {
        const int64_t p = pos[tok];
        for (int64_t d = 0; d < half_dim; ++d) {
            c[d] = cos_tab[p * st.cs + d];
            s[d] = sin_tab[p * st.cs + d];
        }
        for (int64_t hb = 0; hb < n_hblk; ++hb) {
            const int64_t h_end = std::min<int64_t>((hb + 1) * heads_per_block, n_heads);
            for (int64_t h = hb * heads_per_block; h < h_end; ++h) {
                const T *xb = x + tok * st.xt + h * st.xh;
                T *ob = out + tok * st.ot + h * st.oh;
                for (int64_t d = 0; d < half_dim; ++d) {
                    const float x1 = static_cast<float>(xb[d]);
                    const float x2 = static_cast<float>(xb[d + half_dim]);
                    ob[d] = static_cast<T>(x1 * c[d] - x2 * s[d]);
                    ob[d + half_dim] = static_cast<T>(x2 * c[d] + x1 * s[d]);
                }
            }
        }
    }
}

void build_cache(int64_t max_pos, int64_t dim, float base, float *cos_out, float *sin_out)
{
    const int64_t half = dim / 2;
    for (int64_t t = 0; t < max_pos; ++t) {
        for (int64_t i = 0; i < half; ++i) {
            const float inv_freq = 1.0f / std::pow(base, static_cast<float>(2 * i) / dim);
            const float a = static_cast<float>(t) * inv_freq;
            cos_out[t * half + i] = std::cos(a);
            sin_out[t * half + i] = std::sin(a);
        }
    }
}

template void apply_neox<float>(const float *, float *, const int64_t *, const float *,
                                const float *, int64_t, int64_t, int64_t, const Strides &, int64_t);

}  // namespace rope
