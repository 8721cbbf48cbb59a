/* Column statistics on the CPU, ported from the tiled Triton kernel (Welford merge of row tiles). The loops are
 * interchanged for the row-major layout: each tile's rows are the outer loop and the columns the inner one, so
 * the per-tile sums are gathered for all columns at once before the merge. */
#include <stdlib.h>

void col_mean_var(const float *x, float *mean, float *var, int rows, int cols, int tile)
{
    float *bsum = calloc(cols, sizeof(float)), *bm2 = calloc(cols, sizeof(float));
    float count = 0.0f;
    for (int c = 0; c < cols; c++) { mean[c] = 0.0f; var[c] = 0.0f; }
    for (int r0 = 0; r0 < rows; r0 += tile) {
        int nb = rows - r0 < tile ? rows - r0 : tile;
        for (int c = 0; c < cols; c++) { bsum[c] = 0.0f; bm2[c] = 0.0f; }
        for (int r = r0; r < r0 + nb; r++)
            for (int c = 0; c < cols; c++)
                bsum[c] += x[r * cols + c];
        for (int r = r0; r < r0 + nb; r++)
            for (int c = 0; c < cols; c++) {
                float d = x[r * cols + c] - bsum[c] / nb;
                bm2[c] += d * d;
            }
        for (int c = 0; c < cols; c++) {
            float bmean = bsum[c] / nb;
            float delta = bmean - mean[c];
            float tot = count + nb;
            mean[c] = mean[c] + delta * (nb / tot);
            var[c] = var[c] + bm2[c] + delta * delta * (count * nb / tot);
        }
        count += nb;
    }
    for (int c = 0; c < cols; c++) var[c] = var[c] / count;
    free(bsum); free(bm2);
}
