// Sigmoid focal loss (mean), C++ port of the Triton kernel for the CPU trainer.
#include <algorithm>
#include <cmath>

float sigmoid_focal_loss(const float* logits, const float* targets, long n, float alpha, float gamma) {
    double total = 0.0;
    for (long i = 0; i < n; ++i) {
        float x = logits[i], t = targets[i];
        float p = 1.0f / (1.0f + std::exp(-x));
        float ce = std::max(x, 0.0f) - x * t + std::log(1.0f + std::exp(-std::fabs(x)));
        float p_t = p * t + (1.0f - p) * (1.0f - t);
        float alpha_t = alpha * t + (1.0f - alpha) * (1.0f - t);
        total += alpha_t * std::exp(gamma * std::log(std::max(1.0f - p_t, 1e-12f))) * ce;
    }
    return static_cast<float>(total / n);
}
