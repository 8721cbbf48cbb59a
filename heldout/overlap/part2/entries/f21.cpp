// CPU fallback for the range histogram.  Structured like the device launch:
// the input is cut into BLOCK-sized chunks, each chunk computes its bin
// indices and keep-mask, then does atomic increments into the shared counts.
#include <algorithm>
#include <atomic>
#include <cstdint>
#include <vector>

namespace stats {

constexpr int64_t BLOCK = 1024;

static void histc_block(const float* x, std::atomic<int32_t>* hist, int64_t n,
                        float lo, float hi, int nbins, int64_t pid)
{
    int32_t idx[BLOCK];
    bool keep[BLOCK];
    const float bin_width = (hi - lo) / float(nbins);

    for (int64_t t = 0; t < BLOCK; ++t) {
        const int64_t off = pid * BLOCK + t;
        const bool in_bounds = off < n;
        const float v = in_bounds ? x[off] : 0.0f;
        int32_t b = int32_t((v - lo) / bin_width);
        if (v == hi) b = nbins - 1;                  // inclusive right edge
        b = std::min(std::max(b, 0), nbins - 1);
        idx[t] = b;
        keep[t] = in_bounds && v >= lo && v <= hi;
    }
    for (int64_t t = 0; t < BLOCK; ++t)
        if (keep[t])
            hist[idx[t]].fetch_add(1, std::memory_order_relaxed);
}

std::vector<int32_t> histc(const float* x, int64_t n, int nbins, float lo, float hi)
{
    if (lo == hi && n > 0) {
        auto mm = std::minmax_element(x, x + n);
        lo = *mm.first;
        hi = *mm.second;
    }
    if (lo == hi) {
        lo -= 1.0f;
        hi += 1.0f;
    }
    std::vector<std::atomic<int32_t>> counts(nbins);
    for (auto& c : counts) c.store(0);

    const int64_t grid = (n + BLOCK - 1) / BLOCK;
#pragma omp parallel for schedule(static)
    for (int64_t pid = 0; pid < grid; ++pid)
        histc_block(x, counts.data(), n, lo, hi, nbins, pid);

    std::vector<int32_t> out(nbins);
    for (int i = 0; i < nbins; ++i) out[i] = counts[i].load();
    return out;
}

}  // namespace stats
