/* Reference row-wise LayerNorm: y[r, :] = (x[r, :] - mu) * rstd * w + b
 * x, y: [rows, cols] row-major float32. mean/rstd may be NULL. */
#include <math.h>
#include <stddef.h>

void layernorm_rows_ref(const float *x, const float *w, const float *b,
                        float *y, float *mean, float *rstd,
                        int rows, int cols, float eps)
{
    for (int r = 0; r < rows; ++r) {
        const float *xr = x + (size_t)r * cols;
        float *yr = y + (size_t)r * cols;

        double s = 0.0, sq = 0.0;
        for (int c = 0; c < cols; ++c) {
            double v = xr[c];
            s += v;
            sq += v * v;
        }
        double mu = s / cols;
        double var = sq / cols - mu * mu;
        if (var < 0.0)
            var = 0.0;
        float inv = (float)(1.0 / sqrt(var + eps));

        if (mean)
            mean[r] = (float)mu;
        if (rstd)
            rstd[r] = inv;

        for (int c = 0; c < cols; ++c)
            yr[c] = ((xr[c] - (float)mu) * inv) * w[c] + b[c];
    }
}
