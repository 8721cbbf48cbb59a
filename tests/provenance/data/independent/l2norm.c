/* Row L2 normalisation. */
#include <math.h>

void l2norm_rows(const float *x, float *y, int rows, int cols, float eps)
{
    for (int r = 0; r < rows; ++r) {
        float ss = 0.0f;
        for (int c = 0; c < cols; ++c) ss += x[r * cols + c] * x[r * cols + c];
        float nrm = fmaxf(sqrtf(ss), eps);
        for (int c = 0; c < cols; ++c) y[r * cols + c] = x[r * cols + c] / nrm;
    }
}
