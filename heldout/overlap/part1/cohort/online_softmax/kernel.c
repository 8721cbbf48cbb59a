/* Reference online-normalizer softmax over the last dimension.
 * One pass for (max, denominator), one pass to write the output. */
#include <math.h>
#include <stddef.h>

void softmax_online_ref(const float *in, float *out, int rows, int cols)
{
    for (int r = 0; r < rows; ++r) {
        const float *x = in + (size_t)r * cols;
        float *y = out + (size_t)r * cols;

        float m = -INFINITY;
        float d = 0.0f;
        for (int j = 0; j < cols; ++j) {
            float v = x[j];
            if (v > m) {
                d = d * expf(m - v) + 1.0f;
                m = v;
            } else {
                d += expf(v - m);
            }
        }

        float inv_d = 1.0f / d;
        for (int j = 0; j < cols; ++j)
            y[j] = expf(x[j] - m) * inv_d;
    }
}
