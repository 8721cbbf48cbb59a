/* Segment sum, CPU path.  Work is split the same way as on the GPU: one task
 * per (segment, column block); each task keeps a BLOCK_D-wide float
 * accumulator, walks the rows of its segment and writes the block once. */
#include <stddef.h>
#include <stdint.h>

#ifndef SEG_BLOCK_D
#define SEG_BLOCK_D 256
#endif

static inline int next_pow2_capped(int v, int cap)
{
    int p = 1;
    while (p < v && p < cap)
        p <<= 1;
    return p;
}

void segment_sum_blocked(const float *val, const int32_t *off, float *out,
                         int num_seg, int D, ptrdiff_t stride_v, ptrdiff_t stride_o)
{
    const int block_d = next_pow2_capped(D, SEG_BLOCK_D);
    const int n_dblk = (D + block_d - 1) / block_d;
    const long n_tasks = (long)num_seg * n_dblk;

#pragma omp parallel for schedule(dynamic, 16)
    for (long task = 0; task < n_tasks; ++task) {
        const int seg = (int)(task / n_dblk);
        const int dblk = (int)(task % n_dblk);
        const int32_t start = off[seg];
        const int32_t end = off[seg + 1];
        const int c0 = dblk * block_d;
        const int width = (c0 + block_d <= D) ? block_d : D - c0;

        float acc[SEG_BLOCK_D];
        for (int j = 0; j < width; ++j)
            acc[j] = 0.0f;

        for (int32_t r = start; r < end; ++r) {
            const float *row = val + (ptrdiff_t)r * stride_v + c0;
            for (int j = 0; j < width; ++j)
                acc[j] += row[j];
        }

        float *dst = out + (ptrdiff_t)seg * stride_o + c0;
        for (int j = 0; j < width; ++j)
            dst[j] = acc[j];
    }
}
