/* Numerically stable sigmoid (port): z = exp(-|x|), branch on the sign. */
#include <math.h>

void sigmoid_kernel(const float *x, float *out, int n_elements)
{
    for (int i = 0; i < n_elements; i++) {
        float v = x[i];
        float z = expf(-fabsf(v));
        out[i] = v >= 0 ? 1.0f / (1.0f + z) : z / (1.0f + z);
    }
}
