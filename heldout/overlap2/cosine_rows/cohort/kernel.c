/* Row-wise cosine similarity, CPU reference (one pass: dot product and both squared norms). */
#include <math.h>

void cosine_rows(const float *a, const float *b, float *out, int rows, int dim, float eps)
{
    for (int r = 0; r < rows; ++r) {
        float dot = 0.0f, na = 0.0f, nb = 0.0f;
        for (int d = 0; d < dim; ++d) {
            float x = a[r * dim + d], y = b[r * dim + d];
            dot += x * y;
            na += x * x;
            nb += y * y;
        }
        float denom = fmaxf(sqrtf(na) * sqrtf(nb), eps);
        out[r] = dot / denom;
    }
}
