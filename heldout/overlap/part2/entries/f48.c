/*
 * train_utils.c -- small numeric helpers for the on-device fine-tuning demo.
 * Everything is single threaded and float32.
 */
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* ---------------------------------------------------------------- rng --- */
typedef struct { uint64_t s; } rng_t;

static inline uint32_t rng_next(rng_t *r)
{
    r->s = r->s * 6364136223846793005ULL + 1442695040888963407ULL;
    uint32_t x = (uint32_t)(((r->s >> 18u) ^ r->s) >> 27u);
    uint32_t rot = (uint32_t)(r->s >> 59u);
    return (x >> rot) | (x << ((-rot) & 31));
}

static inline float rng_uniform(rng_t *r) { return (rng_next(r) >> 8) * (1.0f / 16777216.0f); }

float rng_normal(rng_t *r)
{
    float u1 = rng_uniform(r), u2 = rng_uniform(r);
    if (u1 < 1e-12f) u1 = 1e-12f;
    return sqrtf(-2.0f * logf(u1)) * cosf(6.2831853f * u2);
}

void init_kaiming(float *w, size_t n, int fan_in, rng_t *r)
{
    float std = sqrtf(2.0f / (float)fan_in);
    for (size_t i = 0; i < n; ++i)
        w[i] = std * rng_normal(r);
}

/* --------------------------------------------------------------- loss --- */
float cross_entropy_fwd_bwd(const float *logits, const int *labels, float *dlogits,
                            int batch, int classes)
{
    float loss = 0.0f;
    for (int b = 0; b < batch; ++b) {
        const float *z = logits + (size_t)b * classes;
        float *dz = dlogits + (size_t)b * classes;
        float mx = z[0];
        for (int c = 1; c < classes; ++c) mx = z[c] > mx ? z[c] : mx;
        float s = 0.0f;
        for (int c = 0; c < classes; ++c) { dz[c] = expf(z[c] - mx); s += dz[c]; }
        for (int c = 0; c < classes; ++c) dz[c] /= s;
        loss += -logf(dz[labels[b]] + 1e-12f);
        dz[labels[b]] -= 1.0f;
        for (int c = 0; c < classes; ++c) dz[c] /= (float)batch;
    }
    return loss / (float)batch;
}

/* ----------------------------------------------------- grad handling --- */
float grad_global_norm(float *const *grads, const size_t *sizes, int ntensors)
{
    double ss = 0.0;
    for (int t = 0; t < ntensors; ++t)
        for (size_t i = 0; i < sizes[t]; ++i)
            ss += (double)grads[t][i] * grads[t][i];
    return (float)sqrt(ss);
}

void clip_grad_norm(float *const *grads, const size_t *sizes, int ntensors, float max_norm)
{
    float norm = grad_global_norm(grads, sizes, ntensors);
    if (norm <= max_norm || norm == 0.0f)
        return;
    float k = max_norm / (norm + 1e-6f);
    for (int t = 0; t < ntensors; ++t)
        for (size_t i = 0; i < sizes[t]; ++i)
            grads[t][i] *= k;
}

void zero_grads(float *const *grads, const size_t *sizes, int ntensors)
{
    for (int t = 0; t < ntensors; ++t)
        memset(grads[t], 0, sizes[t] * sizeof(float));
}

/* ---------------------------------------------------------- schedule --- */
float lr_warmup_cosine(int step, int warmup, int total, float peak, float floor_lr)
{
    if (step < warmup)
        return peak * (float)(step + 1) / (float)warmup;
    if (step >= total)
        return floor_lr;
    float p = (float)(step - warmup) / (float)(total - warmup);
    return floor_lr + 0.5f * (peak - floor_lr) * (1.0f + cosf(3.14159265f * p));
}

/* ---------------------------------------------------------- optimiser --- */
typedef struct {
    float lr, beta1, beta2, eps, weight_decay;
    int step;
} adam_cfg_t;

void adam_update(float *param, const float *grad, float *m, float *v, size_t n,
                 const adam_cfg_t *cfg)
{
    const float beta1 = cfg->beta1, beta2 = cfg->beta2;
    const float bc1 = 1.0f - powf(beta1, (float)cfg->step);
    const float bc2 = 1.0f - powf(beta2, (float)cfg->step);

    for (size_t i = 0; i < n; ++i) {
        float g = grad[i];
        if (cfg->weight_decay != 0.0f)
            g += cfg->weight_decay * param[i];

        m[i] = beta1 * m[i] + (1.0f - beta1) * g;
        v[i] = beta2 * v[i] + (1.0f - beta2) * g * g;

        const float mhat = m[i] / bc1;
        const float vhat = v[i] / bc2;
        param[i] -= cfg->lr * mhat / (sqrtf(vhat) + cfg->eps);
    }
}

/* ------------------------------------------------------------ ema ------ */
void ema_update(float *shadow, const float *param, size_t n, float decay)
{
    for (size_t i = 0; i < n; ++i)
        shadow[i] = decay * shadow[i] + (1.0f - decay) * param[i];
}

int has_nonfinite(const float *x, size_t n)
{
    for (size_t i = 0; i < n; ++i)
        if (!isfinite(x[i]))
            return 1;
    return 0;
}
