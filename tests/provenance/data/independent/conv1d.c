/* Valid 1-D convolution (cross-correlation) with bias. */
void conv1d(const float *x, const float *w, const float *bias, float *y, int n, int k, int cin, int cout)
{
    for (int o = 0; o < cout; o++)
        for (int t = 0; t + k <= n; t++) {
            float s = bias[o];
            for (int c = 0; c < cin; c++)
                for (int j = 0; j < k; j++)
                    s += w[(o * cin + c) * k + j] * x[c * n + t + j];
            y[o * (n - k + 1) + t] = s;
        }
}
