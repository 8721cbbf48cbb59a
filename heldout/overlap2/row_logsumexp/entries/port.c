/* logsumexp(x / T) * T per row, C port of the online Triton kernel: one running max and sum per row. */
#include <math.h>

void row_logsumexp(const float *x, float *out, int rows, int cols, float temp)
{
    float inv_temp = 1.0f / temp;
    for (int r = 0; r < rows; ++r) {
        float m = -INFINITY, s = 0.0f;
        for (int c = 0; c < cols; ++c) {
            float v = x[r * cols + c] * inv_temp;
            float m_new = fmaxf(m, v);
            s = s * expf(m - m_new) + expf(v - m_new);
            m = m_new;
        }
        out[r] = (m + logf(s)) * temp;
    }
}
