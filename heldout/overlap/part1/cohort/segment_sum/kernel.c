/* Reference CSR segment sum.
 *   values : [n_rows, dim]  row-major
 *   offsets: [n_seg + 1]    offsets[0] = 0, offsets[n_seg] = n_rows
 *   out    : [n_seg, dim]
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

void segment_sum_ref(const float *values, const int32_t *offsets,
                     float *out, int n_seg, int dim)
{
    for (int s = 0; s < n_seg; ++s) {
        float *dst = out + (size_t)s * dim;
        memset(dst, 0, sizeof(float) * (size_t)dim);

        int32_t beg = offsets[s];
        int32_t end = offsets[s + 1];
        for (int32_t r = beg; r < end; ++r) {
            const float *src = values + (size_t)r * dim;
            for (int d = 0; d < dim; ++d)
                dst[d] += src[d];
        }
    }
}
