// EMA weight averaging on the host (the CPU build of the trainer), a port of the Triton kernel: OpenMP over the
// flat buffer, same warm-up decay.
#include <algorithm>
#include <cstddef>

struct HostEMA {
    float* shadow;
    std::size_t n;
    float decay;
    long step = 0;

    void update(const float* param) {
        float d = std::min(decay, (1.0f + step) / (10.0f + step));
#pragma omp parallel for
        for (long i = 0; i < (long)n; ++i) {
            float s = shadow[i];
            s = s - (1.0f - d) * (s - param[i]);
            shadow[i] = s;
        }
        ++step;
    }
};
