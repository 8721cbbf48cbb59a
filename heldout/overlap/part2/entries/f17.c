/*
 * Softmax cross-entropy with label smoothing and ignore_index, forward and
 * backward in one sweep.  logits: [n, vocab] float32, targets: [n] int32.
 * Returns the mean loss over non-ignored rows; dlogits may be NULL.
 */
#include <math.h>
#include <stddef.h>
#include <stdint.h>

float smoothed_xent(const float *logits, const int32_t *targets, float *dlogits,
                    int n, int vocab, float smoothing, int32_t ignore_index)
{
    const float on = 1.0f - smoothing;
    const float off = smoothing / (float)vocab;
    double total = 0.0;
    int counted = 0;

    for (int i = 0; i < n; ++i) {
        const float *z = logits + (size_t)i * vocab;
        float *dz = dlogits ? dlogits + (size_t)i * vocab : NULL;
        const int32_t t = targets[i];

        if (t == ignore_index) {
            if (dz)
                for (int j = 0; j < vocab; ++j)
                    dz[j] = 0.0f;
            continue;
        }

        /* log-sum-exp with a single pass using the running-max trick */
        float mx = -INFINITY, s = 0.0f, zsum = 0.0f;
        for (int j = 0; j < vocab; ++j) {
            float v = z[j];
            zsum += v;
            if (v > mx) {
                s = s * expf(mx - v) + 1.0f;
                mx = v;
            } else {
                s += expf(v - mx);
            }
        }
        const float lse = mx + logf(s);

        /* loss = lse - on * z[t] - off * sum(z) */
        total += (double)(lse - on * z[t] - off * zsum);
        counted++;

        if (dz) {
            for (int j = 0; j < vocab; ++j)
                dz[j] = expf(z[j] - lse) - off;
            dz[t] -= on;
        }
    }

    if (counted == 0)
        return 0.0f;
    if (dlogits) {
        const float inv = 1.0f / (float)counted;
        for (size_t k = 0; k < (size_t)n * vocab; ++k)
            dlogits[k] *= inv;
    }
    return (float)(total / counted);
}
