/* cosine similarity of embedding pairs for a retrieval evaluator (plain C, double accumulation) */
#include <math.h>

double cos_pair(const float *u, const float *v, int n)
{
    double uv = 0, uu = 0, vv = 0;
    for (int i = 0; i < n; i++) {
        uv += (double)u[i] * v[i];
        uu += (double)u[i] * u[i];
        vv += (double)v[i] * v[i];
    }
    if (uu == 0 || vv == 0)
        return 0.0;
    return uv / (sqrt(uu) * sqrt(vv));
}

void cos_batch(const float *u, const float *v, float *out, int rows, int n)
{
    for (int r = 0; r < rows; r++)
        out[r] = (float)cos_pair(u + (long)r * n, v + (long)r * n, n);
}
