/* Huber loss per row (mean over columns), ported from the Triton kernel for the CPU fallback. */
#include <math.h>

void huber_rows(const float *pred, const float *target, float *out, int rows, int cols, float delta)
{
    for (int r = 0; r < rows; r++) {
        float acc = 0.0f;
        for (int c = 0; c < cols; c++) {
            float d = fabsf(pred[r * cols + c] - target[r * cols + c]);
            float quad = 0.5f * d * d;
            float lin = delta * (d - 0.5f * delta);
            acc += d < delta ? quad : lin;
        }
        out[r] = acc / cols;
    }
}
