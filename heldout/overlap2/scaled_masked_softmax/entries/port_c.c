/* Scaled, masked softmax over the last dimension, CPU reference for the attention kernel (three passes per row). */
#include <math.h>
#include <stddef.h>

void scaled_masked_softmax(const float *scores, const float *mask, float *probs, int rows, int n_keys, float scale)
{
    for (int q = 0; q < rows; ++q) {
        const float *s = scores + (size_t)q * n_keys;
        const float *m = mask + (size_t)q * n_keys;
        float *p = probs + (size_t)q * n_keys;
        float mx = -INFINITY;
        for (int k = 0; k < n_keys; ++k) {
            float z = s[k] * scale + m[k];
            mx = z > mx ? z : mx;
        }
        float acc = 0.0f;
        for (int k = 0; k < n_keys; ++k) {
            float z = s[k] * scale + m[k];
            acc += expf(z - mx);
        }
        float inv = 1.0f / acc;
        for (int k = 0; k < n_keys; ++k) {
            float z = s[k] * scale + m[k];
            p[k] = expf(z - mx) * inv;
        }
    }
}
