/* GEMV + bias + ReLU on the CPU, ported from the Triton kernel. The K loop is the outer one (axpy form: each input
 * element scales a weight column into the accumulators) so that W, stored [M, K], is read with a stride but x once. */
#include <stdlib.h>

void matvec_bias_relu(const float *w, const float *x, const float *bias, float *y, int batch, int M, int K)
{
    float *acc = malloc(sizeof(float) * M);
    for (int b = 0; b < batch; b++) {
        for (int m = 0; m < M; m++)
            acc[m] = 0.0f;
        for (int k = 0; k < K; k++) {
            float xk = x[b * K + k];
            for (int m = 0; m < M; m++)
                acc[m] += w[m * K + k] * xk;
        }
        for (int m = 0; m < M; m++) {
            float v = acc[m] + bias[m];
            y[b * M + m] = v > 0.0f ? v : 0.0f;
        }
    }
    free(acc);
}
