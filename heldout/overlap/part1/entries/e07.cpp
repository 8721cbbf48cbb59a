// GroupNorm forward on CPU, NCHW, mirroring the GPU schedule:
// one task per (n, g), the group slab is walked in BLOCK-sized chunks three
// times (mean, centred variance, normalize + per-channel affine).
#include <cmath>
#include <cstdint>
#include <cstddef>

namespace gn {

constexpr int kBlock = 1024;

void forward(const float *X, float *Y, const float *W, const float *B,
             int N, int C, int HW, int G, float eps)
{
    const int cpg = C / G;
    const int64_t group_numel = static_cast<int64_t>(cpg) * HW;

#pragma omp parallel for
    for (int pid = 0; pid < N * G; ++pid) {
        const int n = pid / G;
        const int g = pid % G;
        const int64_t base = static_cast<int64_t>(n) * C * HW + g * group_numel;

        float lane[kBlock];
        for (int l = 0; l < kBlock; ++l) lane[l] = 0.0f;
        for (int64_t i = 0; i < group_numel; i += kBlock)
            for (int l = 0; l < kBlock && i + l < group_numel; ++l)
                lane[l] += X[base + i + l];
        float s = 0.0f;
        for (int l = 0; l < kBlock; ++l) s += lane[l];
        const float mean = s / static_cast<float>(group_numel);

        for (int l = 0; l < kBlock; ++l) lane[l] = 0.0f;
        for (int64_t i = 0; i < group_numel; i += kBlock)
            for (int l = 0; l < kBlock && i + l < group_numel; ++l) {
                const float d = X[base + i + l] - mean;
                lane[l] += d * d;
            }
        float v = 0.0f;
        for (int l = 0; l < kBlock; ++l) v += lane[l];
        const float rstd = 1.0f / std::sqrt(v / static_cast<float>(group_numel) + eps);

        for (int64_t i = 0; i < group_numel; i += kBlock)
            for (int l = 0; l < kBlock && i + l < group_numel; ++l) {
                const int64_t off = i + l;
                const int ch = g * cpg + static_cast<int>(off / HW);
                Y[base + off] = (X[base + off] - mean) * rstd * W[ch] + B[ch];
            }
    }
}

}  // namespace gn
