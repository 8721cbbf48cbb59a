/*
 * group_norm_nhwc.c
 *
 * GroupNorm for channels-last activations x[N][H*W][C].  Statistics are
 * gathered with Welford's algorithm, one accumulator per group, while
 * streaming over pixels once; then a second sweep applies the precomputed
 * per-(n, channel) scale and shift.
 */
#include <math.h>
#include <stdlib.h>
#include <stddef.h>

typedef struct {
    double mean;
    double m2;
    long count;
} welford_t;

static inline void welford_push(welford_t *w, double x)
{
    w->count += 1;
    double d = x - w->mean;
    w->mean += d / (double)w->count;
    w->m2 += d * (x - w->mean);
}

int group_norm_nhwc(const float *x, float *y, const float *gamma, const float *beta,
                    int N, int HW, int C, int G, float eps)
{
    if (C % G != 0)
        return -1;
    const int cpg = C / G;
    welford_t *acc = (welford_t *)malloc(sizeof(welford_t) * (size_t)G);
    float *scale = (float *)malloc(sizeof(float) * (size_t)C);
    float *shift = (float *)malloc(sizeof(float) * (size_t)C);
    if (!acc || !scale || !shift) {
        free(acc);
        free(scale);
        free(shift);
        return -2;
    }

    for (int n = 0; n < N; ++n) {
        const float *xn = x + (size_t)n * HW * C;
        float *yn = y + (size_t)n * HW * C;

        for (int g = 0; g < G; ++g) {
            acc[g].mean = 0.0;
            acc[g].m2 = 0.0;
            acc[g].count = 0;
        }
        for (int p = 0; p < HW; ++p) {
            const float *px = xn + (size_t)p * C;
            for (int c = 0; c < C; ++c)
                welford_push(&acc[c / cpg], px[c]);
        }

        for (int c = 0; c < C; ++c) {
            const welford_t *w = &acc[c / cpg];
            double inv_std = 1.0 / sqrt(w->m2 / (double)w->count + (double)eps);
            scale[c] = (float)(gamma[c] * inv_std);
            shift[c] = (float)(beta[c] - w->mean * gamma[c] * inv_std);
        }

        for (int p = 0; p < HW; ++p) {
            const float *px = xn + (size_t)p * C;
            float *py = yn + (size_t)p * C;
            for (int c = 0; c < C; ++c)
                py[c] = px[c] * scale[c] + shift[c];
        }
    }

    free(acc);
    free(scale);
    free(shift);
    return 0;
}
