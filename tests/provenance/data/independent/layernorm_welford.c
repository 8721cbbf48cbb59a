/* LayerNorm with Welford's algorithm for the statistics. */
#include <math.h>

void layernorm_welford(const float *x, const float *g, const float *b, float *y, int rows, int d, float eps)
{
    for (int r = 0; r < rows; r++) {
        const float *xr = x + r * d;
        double mean = 0.0, m2 = 0.0;
        for (int i = 0; i < d; i++) {
            double delta = xr[i] - mean;
            mean += delta / (i + 1);
            m2 += delta * (xr[i] - mean);
        }
        float inv = 1.0f / sqrtf((float)(m2 / d) + eps);
        for (int i = 0; i < d; i++)
            y[r * d + i] = (float)((xr[i] - mean) * inv) * g[i] + b[i];
    }
}
