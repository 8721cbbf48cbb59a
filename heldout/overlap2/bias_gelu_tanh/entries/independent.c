/* GELU (tanh approximation) for an inference runtime's CPU kernels, with the bias of the preceding linear layer. */
#include <math.h>

#define SQRT_2_OVER_PI 0.7978845608028654f

void gelu_tanh_bias(float *x, const float *bias, int tokens, int features)
{
    for (int t = 0; t < tokens; t++) {
        float *row = x + t * features;
        for (int f = 0; f < features; f++) {
            float v = row[f] + bias[f];
            float cube = v * v * v;
            row[f] = 0.5f * v * (1.0f + tanhf(SQRT_2_OVER_PI * (v + 0.044715f * cube)));
        }
    }
}
