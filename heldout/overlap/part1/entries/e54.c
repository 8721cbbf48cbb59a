/*
 * GPT-J style rotary embedding (interleaved pairs), in place.
 *
 * For head_dim D, element pairs (2i, 2i+1) are treated as the complex number
 * z = x[2i] + j*x[2i+1] and multiplied by exp(j * pos * base^(-2i/D)).
 * Only the first `rot_dim` channels are rotated (partial rotary); the rest
 * pass through.  Angles are computed on the fly, no cache.
 */
#include <math.h>
#include <stddef.h>
#include <stdint.h>

typedef struct {
    float re, im;
} cpx_t;

static inline cpx_t cpx_mul(cpx_t a, cpx_t b)
{
    cpx_t r = { a.re * b.re - a.im * b.im, a.re * b.im + a.im * b.re };
    return r;
}

void rotary_interleaved_inplace(float *qk, const int32_t *positions,
                                int n_tokens, int n_heads, int head_dim,
                                int rot_dim, float base)
{
    const int n_pairs = rot_dim / 2;
    const double log_base = log((double)base);

    for (int t = 0; t < n_tokens; ++t) {
        const double p = (double)positions[t];
        for (int i = 0; i < n_pairs; ++i) {
            /* same rotation for every head at this (token, pair) */
            const double ang = p * exp(-log_base * (2.0 * i) / (double)rot_dim);
            const cpx_t w = { (float)cos(ang), (float)sin(ang) };
            for (int h = 0; h < n_heads; ++h) {
                float *v = qk + ((size_t)t * n_heads + h) * head_dim + 2 * i;
                cpx_t z = { v[0], v[1] };
                z = cpx_mul(z, w);
                v[0] = z.re;
                v[1] = z.im;
            }
        }
    }
}

/* convenience wrapper for q and k sharing positions */
void rotary_qk_interleaved(float *q, float *k, const int32_t *positions,
                           int n_tokens, int n_q_heads, int n_kv_heads,
                           int head_dim, float base)
{
    rotary_interleaved_inplace(q, positions, n_tokens, n_q_heads, head_dim, head_dim, base);
    rotary_interleaved_inplace(k, positions, n_tokens, n_kv_heads, head_dim, head_dim, base);
}
