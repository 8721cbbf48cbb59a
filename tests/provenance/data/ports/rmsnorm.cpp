// RMSNorm rows: y = x * rsqrt(mean(x^2) + eps) * w. Port of rmsnorm_kernel.
#include <cmath>
#include <cstddef>

void rmsnorm(const float* x, const float* w, float* out, std::size_t rows, std::size_t n_cols,
             std::size_t row_stride, float eps) {
    for (std::size_t r = 0; r < rows; ++r) {
        const float* xr = x + r * row_stride;
        float sq_sum = 0.f;
        for (std::size_t c = 0; c < n_cols; ++c) {
            float v = xr[c];
            sq_sum += v * v;
        }
        float inv_rms = 1.0f / std::sqrt(sq_sum / n_cols + eps);
        for (std::size_t c = 0; c < n_cols; ++c) {
            out[r * row_stride + c] = xr[c] * inv_rms * w[c];
        }
    }
}
