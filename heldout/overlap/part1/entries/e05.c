/* Cache-blocked out-of-place transpose for row-major float matrices.
 * dst[c * ld_dst + r] = src[r * ld_src + c]
 * Tiles of TB x TB; inner 4x4 micro-tiles are unrolled by hand. */
#include <stddef.h>

#define TB 32

static void transpose_4x4(const float *s, size_t ls, float *d, size_t ld)
{
    float a0 = s[0], a1 = s[1], a2 = s[2], a3 = s[3];
    float b0 = s[ls], b1 = s[ls + 1], b2 = s[ls + 2], b3 = s[ls + 3];
    float c0 = s[2 * ls], c1 = s[2 * ls + 1], c2 = s[2 * ls + 2], c3 = s[2 * ls + 3];
    float e0 = s[3 * ls], e1 = s[3 * ls + 1], e2 = s[3 * ls + 2], e3 = s[3 * ls + 3];
    d[0] = a0; d[1] = b0; d[2] = c0; d[3] = e0;
    d[ld] = a1; d[ld + 1] = b1; d[ld + 2] = c1; d[ld + 3] = e1;
    d[2 * ld] = a2; d[2 * ld + 1] = b2; d[2 * ld + 2] = c2; d[2 * ld + 3] = e2;
    d[3 * ld] = a3; d[3 * ld + 1] = b3; d[3 * ld + 2] = c3; d[3 * ld + 3] = e3;
}

void transpose_f32(const float *src, float *dst, size_t rows, size_t cols,
                   size_t ld_src, size_t ld_dst)
{
    for (size_t r0 = 0; r0 < rows; r0 += TB) {
        size_t r1 = r0 + TB < rows ? r0 + TB : rows;
        for (size_t c0 = 0; c0 < cols; c0 += TB) {
            size_t c1 = c0 + TB < cols ? c0 + TB : cols;
            size_t r = r0;
            for (; r + 4 <= r1; r += 4) {
                size_t c = c0;
                for (; c + 4 <= c1; c += 4)
                    transpose_4x4(src + r * ld_src + c, ld_src, dst + c * ld_dst + r, ld_dst);
                for (; c < c1; ++c)
                    for (size_t k = 0; k < 4; ++k)
                        dst[c * ld_dst + r + k] = src[(r + k) * ld_src + c];
            }
            for (; r < r1; ++r)
                for (size_t c = c0; c < c1; ++c)
                    dst[c * ld_dst + r] = src[r * ld_src + c];
        }
    }
}

/* in-place transpose for square matrices */
void transpose_square_inplace(float *a, size_t n, size_t ld)
{
    for (size_t i = 0; i < n; ++i)
        for (size_t j = i + 1; j < n; ++j) {
            float t = a[i * ld + j];
            a[i * ld + j] = a[j * ld + i];
            a[j * ld + i] = t;
        }
}
