/*
 * imgstats.c -- per-frame statistics for the capture pipeline
 * (auto exposure, clipping detection, simple contrast stretch).
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define LUMA_R 0.2126f
#define LUMA_G 0.7152f
#define LUMA_B 0.0722f

typedef struct {
    float mean;
    float stddev;
    float min;
    float max;
    float clip_lo_frac;
    float clip_hi_frac;
} frame_stats_t;

/* planar RGB float [3][h*w] -> luma [h*w] */
void rgb_to_luma(const float *rgb, float *luma, int npix)
{
    const float *r = rgb, *g = rgb + npix, *b = rgb + 2 * npix;
    for (int i = 0; i < npix; ++i)
        luma[i] = LUMA_R * r[i] + LUMA_G * g[i] + LUMA_B * b[i];
}

void compute_frame_stats(const float *v, int n, float clip_lo, float clip_hi,
                         frame_stats_t *st)
{
    double s = 0.0, ss = 0.0;
    float mn = INFINITY, mx = -INFINITY;
    int nlo = 0, nhi = 0;
    for (int i = 0; i < n; ++i) {
        float x = v[i];
        s += x;
        ss += (double)x * x;
        if (x < mn) mn = x;
        if (x > mx) mx = x;
        nlo += x <= clip_lo;
        nhi += x >= clip_hi;
    }
    st->mean = n ? (float)(s / n) : 0.0f;
    st->stddev = n ? (float)sqrt(fmax(ss / n - (s / n) * (s / n), 0.0)) : 0.0f;
    st->min = mn;
    st->max = mx;
    st->clip_lo_frac = n ? (float)nlo / n : 0.0f;
    st->clip_hi_frac = n ? (float)nhi / n : 0.0f;
}

/* equal-width histogram; values outside [lo, hi] ignored, hi goes to last bin */
void frame_histogram(const float *x, long n, float lo, float hi, int nbins, int *hist)
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
        hist[b]++;
    }
}

/* percentile from a histogram built by frame_histogram */
float hist_percentile(const int *hist, int nbins, float lo, float hi, float pct)
{
    long total = 0;
    for (int i = 0; i < nbins; ++i)
        total += hist[i];
    if (total == 0)
        return lo;
    long target = (long)(pct * 0.01f * (float)total);
    long acc = 0;
    float w = (hi - lo) / nbins;
    for (int i = 0; i < nbins; ++i) {
        acc += hist[i];
        if (acc > target) {
            long before = acc - hist[i];
            float frac = hist[i] ? (float)(target - before) / hist[i] : 0.0f;
            return lo + w * (i + frac);
        }
    }
    return hi;
}

/* exposure correction in EV stops to bring the median to target */
float auto_exposure_ev(const int *hist, int nbins, float lo, float hi, float target_median)
{
    float med = hist_percentile(hist, nbins, lo, hi, 50.0f);
    if (med <= 1e-6f)
        return 2.0f;
    float ev = log2f(target_median / med);
    if (ev > 2.0f) ev = 2.0f;
    if (ev < -2.0f) ev = -2.0f;
    return ev;
}

void contrast_stretch(float *img, int n, float p_lo, float p_hi)
{
    if (p_hi <= p_lo)
        return;
    float inv = 1.0f / (p_hi - p_lo);
    for (int i = 0; i < n; ++i) {
        float y = (img[i] - p_lo) * inv;
        img[i] = y < 0.0f ? 0.0f : (y > 1.0f ? 1.0f : y);
    }
}

/* 3x3 box blur on a single plane, edges clamped */
void box3(const float *src, float *dst, int h, int w)
{
    for (int y = 0; y < h; ++y) {
        for (int x = 0; x < w; ++x) {
            float acc = 0.0f;
            for (int dy = -1; dy <= 1; ++dy) {
                int yy = y + dy < 0 ? 0 : (y + dy >= h ? h - 1 : y + dy);
                for (int dx = -1; dx <= 1; ++dx) {
                    int xx = x + dx < 0 ? 0 : (x + dx >= w ? w - 1 : x + dx);
                    acc += src[yy * w + xx];
                }
            }
            dst[y * w + x] = acc * (1.0f / 9.0f);
        }
    }
}

int process_frame(const float *rgb, int h, int w, float *out_luma, frame_stats_t *st)
{
    const int npix = h * w;
    int hist[256];
    rgb_to_luma(rgb, out_luma, npix);
    compute_frame_stats(out_luma, npix, 0.002f, 0.998f, st);
    frame_histogram(out_luma, npix, 0.0f, 1.0f, 256, hist);
    float p1 = hist_percentile(hist, 256, 0.0f, 1.0f, 1.0f);
    float p99 = hist_percentile(hist, 256, 0.0f, 1.0f, 99.0f);
    contrast_stretch(out_luma, npix, p1, p99);
    return 0;
}
