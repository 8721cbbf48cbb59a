/* Row softmax, ported from the Triton kernel: one row at a time, max-subtracted. */
#include <math.h>

void softmax_rows(const float *x, float *out, int n_rows, int n_cols, int x_row_stride, int out_row_stride)
{
    for (int row = 0; row < n_rows; ++row) {
        const float *xr = x + row * x_row_stride;
        float *orow = out + row * out_row_stride;
        float mx = -INFINITY;
        for (int c = 0; c < n_cols; ++c)
            mx = fmaxf(mx, xr[c]);
        float den = 0.0f;
        for (int c = 0; c < n_cols; ++c) {
            float num = expf(xr[c] - mx);
            orow[c] = num;
            den += num;
        }
        for (int c = 0; c < n_cols; ++c)
            orow[c] = orow[c] / den;
    }
}
