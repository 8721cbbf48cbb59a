/* log_softmax over rows: three passes (max, sum of exp, write), as in the Triton version. */
#include <math.h>
#include <float.h>

void log_softmax_kernel(const float *x_ptr, float *out_ptr, int n_rows, int n_cols,
                        int x_row_stride, int out_row_stride)
{
    for (int row = 0; row < n_rows; row++) {
        const float *x_row = x_ptr + row * x_row_stride;
        float *out_row = out_ptr + row * out_row_stride;
        float running_max = -FLT_MAX;
        for (int col = 0; col < n_cols; col++) {
            running_max = fmaxf(running_max, x_row[col]);
        }
        float sum_exp = 0.0f;
        for (int col = 0; col < n_cols; col++) {
            sum_exp += expf(x_row[col] - running_max);
        }
        float log_sum = running_max + logf(sum_exp);
        for (int col = 0; col < n_cols; col++) {
            out_row[col] = x_row[col] - log_sum;
        }
    }
}
