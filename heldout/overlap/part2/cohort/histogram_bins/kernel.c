#include <math.h>
#include <string.h>

/*
 * Equal-width histogram, torch.histc semantics:
 * values outside [lo, hi] are ignored, the last bin includes hi.
 */
void histogram_bins_ref(const float *x, long n, float lo, float hi, int nbins, int *hist)
{
    memset(hist, 0, sizeof(int) * (size_t)nbins);
    if (!(hi > lo) || nbins <= 0)
        return;

    const float scale = (float)nbins / (hi - lo);
    for (long i = 0; i < n; ++i) {
        float v = x[i];
        if (isnan(v) || v < lo || v > hi)
            continue;
        int b = (int)((v - lo) * scale);
        if (b >= nbins)
            b = nbins - 1;
        hist[b] += 1;
    }
}
