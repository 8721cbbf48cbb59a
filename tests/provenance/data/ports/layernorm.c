/* LayerNorm forward on the CPU, a straight port of the tiled Triton kernel (fp32 statistics). */
#include <math.h>

void layernorm_fwd(const float *X, float *Y, const float *W, const float *B,
                   int M, int N, int stride, float eps)
{
    for (int row = 0; row < M; ++row) {
        const float *x = X + row * stride;
        float *y = Y + row * stride;
        float mean = 0.0f;
        for (int col = 0; col < N; ++col)
            mean += x[col];
        mean = mean / N;
        float var = 0.0f;
        for (int col = 0; col < N; ++col) {
            float d = x[col] - mean;
            var += d * d;
        }
        var = var / N;
        float rstd = 1 / sqrtf(var + eps);
        for (int col = 0; col < N; ++col) {
            float x_hat = (x[col] - mean) * rstd;
            y[col] = x_hat * W[col] + B[col];
        }
    }
}
