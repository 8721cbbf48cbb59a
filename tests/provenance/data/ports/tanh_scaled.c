/* a * tanh(b * x) through the exp identity, as the Triton kernel computes it. */
#include <math.h>

void tanh_scaled(const float *x, float *out, int n_elements, float a, float b)
{
    for (int i = 0; i < n_elements; ++i) {
        float z = b * x[i];
        float t = 1.0f - 2.0f / (expf(2.0f * z) + 1.0f);
        out[i] = a * t;
    }
}
