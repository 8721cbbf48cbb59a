/* Gated RMSNorm on the CPU: the reference the Triton kernel was written against. */
#include <math.h>

void gated_rmsnorm(const float *x, const float *z, const float *w, float *y, int rows, int cols, float eps)
{
    for (int r = 0; r < rows; ++r) {
        const float *xr = x + r * cols, *zr = z + r * cols;
        float ss = 0.0f;
        for (int c = 0; c < cols; ++c)
            ss += xr[c] * xr[c];
        float rstd = 1.0f / sqrtf(ss / cols + eps);
        for (int c = 0; c < cols; ++c) {
            float g = zr[c] / (1.0f + expf(-zr[c]));
            y[r * cols + c] = xr[c] * rstd * w[c] * g;
        }
    }
}
