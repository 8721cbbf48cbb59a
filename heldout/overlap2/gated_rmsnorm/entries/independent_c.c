/* Independent C implementation of gated RMSNorm for a test harness: two passes per row, double accumulators,
 * the gate as a logistic times its input. */
#include <math.h>

void rmsnorm_gated_ref(const float *x, const float *gate, const float *weight, float *out, long rows, long cols,
                       double eps)
{
    for (long i = 0; i < rows; i++) {
        double acc = 0.0;
        for (long j = 0; j < cols; j++) {
            double v = x[i * cols + j];
            acc += v * v;
        }
        double scale = 1.0 / sqrt(acc / (double)cols + eps);
        for (long j = 0; j < cols; j++) {
            double g = gate[i * cols + j];
            double sig = 1.0 / (1.0 + exp(-g));
            out[i * cols + j] = (float)(x[i * cols + j] * scale * weight[j] * g * sig);
        }
    }
}
