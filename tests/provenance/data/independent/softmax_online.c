/* Online softmax on the CPU: running max and rescaled running sum in one pass, then normalise. */
#include <math.h>

void softmax_online(const float *in, float *out, int rows, int cols)
{
    for (int r = 0; r < rows; ++r) {
        const float *p = in + (long)r * cols;
        float m = -INFINITY, d = 0.0f;
        for (int j = 0; j < cols; ++j) {
            float mj = p[j] > m ? p[j] : m;
            d = d * expf(m - mj) + expf(p[j] - mj);
            m = mj;
        }
        float inv = 1.0f / d;
        for (int j = 0; j < cols; ++j)
            out[(long)r * cols + j] = expf(p[j] - m) * inv;
    }
}
