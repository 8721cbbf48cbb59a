/*
 * ops.c - CPU operators for the small encoder runtime.
 *
 * All tensors are dense row-major float32 unless stated otherwise.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    int rows;
    int cols;
    float *data;
} mat_t;

static inline float *mat_row(const mat_t *m, int r)
{
    return m->data + (size_t)r * m->cols;
}

int mat_alloc(mat_t *m, int rows, int cols)
{
    m->rows = rows;
    m->cols = cols;
    m->data = (float *)calloc((size_t)rows * cols, sizeof(float));
    return m->data ? 0 : -1;
}

void mat_free(mat_t *m)
{
    free(m->data);
    m->data = NULL;
    m->rows = m->cols = 0;
}

/* y[o] = sum_i W[o, i] * x[i] + b[o] */
void op_linear_vec(const float *W, const float *b, const float *x,
                   float *y, int out_dim, int in_dim)
{
    for (int o = 0; o < out_dim; ++o) {
        const float *w = W + (size_t)o * in_dim;
        float acc = b ? b[o] : 0.0f;
        int i = 0;
        for (; i + 4 <= in_dim; i += 4)
            acc += w[i] * x[i] + w[i + 1] * x[i + 1] + w[i + 2] * x[i + 2] + w[i + 3] * x[i + 3];
        for (; i < in_dim; ++i)
            acc += w[i] * x[i];
        y[o] = acc;
    }
}

void op_embed(const float *table, const int32_t *ids, int n, int dim, float *out)
{
    for (int t = 0; t < n; ++t)
        memcpy(out + (size_t)t * dim, table + (size_t)ids[t] * dim, sizeof(float) * dim);
}

void op_add_inplace(float *a, const float *b, size_t n)
{
    for (size_t i = 0; i < n; ++i)
        a[i] += b[i];
}

void op_silu_inplace(float *a, size_t n)
{
    for (size_t i = 0; i < n; ++i)
        a[i] = a[i] / (1.0f + expf(-a[i]));
}

void op_layernorm(const mat_t *in, const float *gamma, const float *beta,
                  mat_t *out, float eps)
{
    const int cols = in->cols;
    for (int r = 0; r < in->rows; ++r) {
        const float *xr = mat_row(in, r);
        float *yr = mat_row(out, r);

        double s = 0.0, sq = 0.0;
        for (int c = 0; c < cols; ++c) {
            double v = xr[c];
            s += v;
            sq += v * v;
        }
        double mu = s / cols;
        double var = sq / cols - mu * mu;
        if (var < 0.0)
            var = 0.0;
        float inv = (float)(1.0 / sqrt(var + eps));

        for (int c = 0; c < cols; ++c)
            yr[c] = ((xr[c] - (float)mu) * inv) * gamma[c] + beta[c];
    }
}

int op_argmax(const float *x, int n)
{
    int best = 0;
    for (int i = 1; i < n; ++i)
        if (x[i] > x[best])
            best = i;
    return best;
}

/* symmetric per-row int8 quantization; scale[r] = max|x| / 127 */
void op_quantize_rows_i8(const mat_t *in, int8_t *q, float *scale)
{
    for (int r = 0; r < in->rows; ++r) {
        const float *x = mat_row(in, r);
        float amax = 0.0f;
        for (int c = 0; c < in->cols; ++c) {
            float a = fabsf(x[c]);
            if (a > amax)
                amax = a;
        }
        float s = amax > 0.0f ? amax / 127.0f : 1.0f;
        float inv = 1.0f / s;
        scale[r] = s;
        int8_t *qr = q + (size_t)r * in->cols;
        for (int c = 0; c < in->cols; ++c) {
            float v = roundf(x[c] * inv);
            qr[c] = (int8_t)(v > 127.f ? 127.f : (v < -127.f ? -127.f : v));
        }
    }
}

void op_transpose(const mat_t *in, mat_t *out)
{
    for (int r = 0; r < in->rows; ++r)
        for (int c = 0; c < in->cols; ++c)
            out->data[(size_t)c * out->cols + r] = in->data[(size_t)r * in->cols + c];
}

/* mean pooling over the token axis, honoring a 0/1 mask */
void op_mean_pool(const mat_t *h, const uint8_t *mask, float *out)
{
    int count = 0;
    memset(out, 0, sizeof(float) * h->cols);
    for (int t = 0; t < h->rows; ++t) {
        if (mask && !mask[t])
            continue;
        const float *row = mat_row(h, t);
        for (int c = 0; c < h->cols; ++c)
            out[c] += row[c];
        ++count;
    }
    if (count > 0) {
        float inv = 1.0f / (float)count;
        for (int c = 0; c < h->cols; ++c)
            out[c] *= inv;
    }
}
