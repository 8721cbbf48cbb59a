void relu(const float *x, float *y, int n) { for (int i = 0; i < n; ++i) y[i] = x[i] > 0.0f ? x[i] : 0.0f; }
