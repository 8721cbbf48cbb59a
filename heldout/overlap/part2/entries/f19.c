/*
 * seqops.c - CPU fallbacks for the text encoder.
 *
 * All tensors are dense, row major, float32 unless noted.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    int batch;
    int seq_len;
    int hidden;
} seq_shape_t;

/* ------------------------------------------------------------------ */
/* token embedding lookup: out[t] = table[ids[t]] (+ pos[t])           */
/* ------------------------------------------------------------------ */
void embed_lookup(const float *table, const int32_t *ids, const float *pos,
                  float *out, int n_tokens, int seq_len, int hidden, int vocab)
{
    for (int t = 0; t < n_tokens; ++t) {
        int id = ids[t];
        if (id < 0 || id >= vocab)
            id = 0; /* map garbage to <unk> */
        const float *src = table + (size_t)id * hidden;
        float *dst = out + (size_t)t * hidden;
        if (pos) {
            const float *p = pos + (size_t)(t % seq_len) * hidden;
            for (int d = 0; d < hidden; ++d)
                dst[d] = src[d] + p[d];
        } else {
            memcpy(dst, src, sizeof(float) * (size_t)hidden);
        }
    }
}

/* ------------------------------------------------------------------ */
/* layer norm over the last axis                                       */
/* ------------------------------------------------------------------ */
void layer_norm_rows(const float *x, const float *gamma, const float *beta,
                     float *y, int rows, int cols, float eps)
{
    for (int r = 0; r < rows; ++r) {
        const float *xr = x + (size_t)r * cols;
        float *yr = y + (size_t)r * cols;
        double mean = 0.0, var = 0.0;
        for (int c = 0; c < cols; ++c)
            mean += xr[c];
        mean /= cols;
        for (int c = 0; c < cols; ++c) {
            double dlt = xr[c] - mean;
            var += dlt * dlt;
        }
        var /= cols;
        float rstd = (float)(1.0 / sqrt(var + eps));
        for (int c = 0; c < cols; ++c) {
            float n = (xr[c] - (float)mean) * rstd;
            yr[c] = gamma ? n * gamma[c] + (beta ? beta[c] : 0.0f) : n;
        }
    }
}

/* ------------------------------------------------------------------ */
/* numerically stable softmax with optional additive key mask           */
/* ------------------------------------------------------------------ */
void softmax_rows_masked(float *x, const uint8_t *key_mask, int rows, int cols)
{
    for (int r = 0; r < rows; ++r) {
        float *xr = x + (size_t)r * cols;
        float mx = -INFINITY;
        for (int c = 0; c < cols; ++c) {
            if (key_mask && !key_mask[c])
                xr[c] = -INFINITY;
            if (xr[c] > mx)
                mx = xr[c];
        }
        if (mx == -INFINITY) {
            memset(xr, 0, sizeof(float) * (size_t)cols);
            continue;
        }
        float s = 0.0f;
        for (int c = 0; c < cols; ++c) {
            xr[c] = expf(xr[c] - mx);
            s += xr[c];
        }
        for (int c = 0; c < cols; ++c)
            xr[c] /= s;
    }
}

/* ------------------------------------------------------------------ */
/* pooling heads                                                       */
/* ------------------------------------------------------------------ */
void pool_cls(const float *x, float *out, seq_shape_t s)
{
    for (int b = 0; b < s.batch; ++b)
        memcpy(out + (size_t)b * s.hidden, x + (size_t)b * s.seq_len * s.hidden,
               sizeof(float) * (size_t)s.hidden);
}

void pool_mean_masked(const float *x, const uint8_t *mask, float *out, seq_shape_t s)
{
    for (int b = 0; b < s.batch; ++b) {
        const float *xb = x + (size_t)b * s.seq_len * s.hidden;
        const uint8_t *mb = mask + (size_t)b * s.seq_len;
        float *ob = out + (size_t)b * s.hidden;
        int n_valid = 0;

        memset(ob, 0, sizeof(float) * (size_t)s.hidden);

        for (int l = 0; l < s.seq_len; ++l) {
            if (!mb[l])
                continue;
            n_valid++;
            const float *tok = xb + (size_t)l * s.hidden;
            for (int d = 0; d < s.hidden; ++d)
                ob[d] += tok[d];
        }

        float inv = 1.0f / (float)(n_valid > 0 ? n_valid : 1);
        for (int d = 0; d < s.hidden; ++d)
            ob[d] *= inv;
    }
}

/* ------------------------------------------------------------------ */
/* misc                                                                */
/* ------------------------------------------------------------------ */
void l2_normalize_rows(float *x, int rows, int cols, float eps)
{
    for (int r = 0; r < rows; ++r) {
        float *xr = x + (size_t)r * cols;
        float ss = 0.0f;
        for (int c = 0; c < cols; ++c)
            ss += xr[c] * xr[c];
        float inv = 1.0f / fmaxf(sqrtf(ss), eps);
        for (int c = 0; c < cols; ++c)
            xr[c] *= inv;
    }
}

int argmax_row(const float *x, int cols)
{
    int best = 0;
    for (int c = 1; c < cols; ++c)
        if (x[c] > x[best])
            best = c;
    return best;
}

void gelu_tanh_inplace(float *x, size_t n)
{
    const float k0 = 0.7978845608f, k1 = 0.044715f;
    for (size_t i = 0; i < n; ++i) {
        float v = x[i];
        x[i] = 0.5f * v * (1.0f + tanhf(k0 * (v + k1 * v * v * v)));
    }
}

float cosine_similarity(const float *a, const float *b, int n)
{
    float dot = 0.0f, na = 0.0f, nb = 0.0f;
    for (int i = 0; i < n; ++i) {
        dot += a[i] * b[i];
        na += a[i] * a[i];
        nb += b[i] * b[i];
    }
    float den = sqrtf(na) * sqrtf(nb);
    return den > 0.0f ? dot / den : 0.0f;
}
