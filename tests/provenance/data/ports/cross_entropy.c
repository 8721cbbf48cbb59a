/* Per-row cross entropy with an online logsumexp over class blocks (port of the Triton kernel). */
#include <math.h>

void cross_entropy_fwd(const float *logits, const long *target, float *loss,
                       int batch, int n_classes, int logits_stride)
{
    for (int row = 0; row < batch; row++) {
        const float *base = logits + row * logits_stride;
        long tgt = target[row];
        float m = -INFINITY;
        float s = 0.0f;
        for (int c = 0; c < n_classes; c++) {
            float z = base[c];
            float m_new = fmaxf(m, z);
            s = s * expf(m - m_new) + expf(z - m_new);
            m = m_new;
        }
        float lse = m + logf(s);
        loss[row] = lse - base[tgt];
    }
}
