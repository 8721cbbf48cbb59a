#include <math.h>
#include <stddef.h>

/*
 * One Adam step (Kingma & Ba), L2 weight decay folded into the gradient.
 * param, m, v are updated in place. step counts from 1.
 */
void adam_step_ref(float *param, const float *grad, float *m, float *v, size_t n,
                   int step, float lr, float beta1, float beta2, float eps,
                   float weight_decay)
{
    const float bc1 = 1.0f - powf(beta1, (float)step);
    const float bc2 = 1.0f - powf(beta2, (float)step);

    for (size_t i = 0; i < n; ++i) {
        float g = grad[i];
        if (weight_decay != 0.0f)
            g += weight_decay * param[i];

        m[i] = beta1 * m[i] + (1.0f - beta1) * g;
        v[i] = beta2 * v[i] + (1.0f - beta2) * g * g;

        const float mhat = m[i] / bc1;
        const float vhat = v[i] / bc2;
        param[i] -= lr * mhat / (sqrtf(vhat) + eps);
    }
}
