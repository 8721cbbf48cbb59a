#include <stddef.h>

/*
 * Reference masked mean pooling over the sequence axis.
 *   x    : [batch, seq_len, hidden], row major
 *   mask : [batch, seq_len], nonzero = real token
 *   out  : [batch, hidden]
 * Rows with no valid token are written as zeros.
 */
void masked_mean_pool_ref(const float *x, const unsigned char *mask, float *out,
                          int batch, int seq_len, int hidden)
{
    for (int b = 0; b < batch; ++b) {
        const float *xb = x + (size_t)b * seq_len * hidden;
        const unsigned char *mb = mask + (size_t)b * seq_len;
        float *ob = out + (size_t)b * hidden;
        int valid = 0;

        for (int d = 0; d < hidden; ++d)
            ob[d] = 0.0f;

        for (int l = 0; l < seq_len; ++l) {
            if (!mb[l])
                continue;
            valid++;
            const float *row = xb + (size_t)l * hidden;
            for (int d = 0; d < hidden; ++d)
                ob[d] += row[d];
        }

        float inv = 1.0f / (float)(valid > 0 ? valid : 1);
        for (int d = 0; d < hidden; ++d)
            ob[d] *= inv;
    }
}
