// Parallel 256-bin histogram of uint8 data, plus a float variant with
// explicit range.  Each thread fills a private histogram (4 interleaved copies
// to break store-to-load dependencies on repeated values), then merges.
#include <algorithm>
#include <array>
#include <functional>
#include <cstdint>
#include <cstring>
#include <thread>
#include <vector>

using Hist256 = std::array<uint64_t, 256>;

static void hist_chunk(const uint8_t *data, size_t n, Hist256 &out)
{
    uint32_t h[4][256];
    std::memset(h, 0, sizeof(h));
    size_t i = 0;
    for (; i + 4 <= n; i += 4) {
        ++h[0][data[i]];
        ++h[1][data[i + 1]];
        ++h[2][data[i + 2]];
        ++h[3][data[i + 3]];
    }
    for (; i < n; ++i)
        ++h[0][data[i]];
    for (int b = 0; b < 256; ++b)
        out[b] += uint64_t(h[0][b]) + h[1][b] + h[2][b] + h[3][b];
}

Hist256 histogram_u8(const uint8_t *data, size_t n, unsigned n_threads = 0)
{
    if (n_threads == 0)
        n_threads = std::max(1u, std::thread::hardware_concurrency());
    // uint32 per-copy counters overflow past 4G elements per chunk
    const size_t chunk = std::min<size_t>((n + n_threads - 1) / n_threads, size_t(1) << 31);
    std::vector<Hist256> partial((n + chunk - 1) / (chunk ? chunk : 1), Hist256{});
    std::vector<std::thread> workers;
    for (size_t t = 0; t < partial.size(); ++t) {
        size_t beg = t * chunk;
        size_t len = std::min(chunk, n - beg);
        workers.emplace_back(hist_chunk, data + beg, len, std::ref(partial[t]));
    }
    for (auto &w : workers)
        w.join();
    Hist256 total{};
    for (const auto &p : partial)
        for (int b = 0; b < 256; ++b)
            total[b] += p[b];
    return total;
}

std::vector<uint64_t> histogram_f32(const float *x, size_t n, int bins, float lo, float hi)
{
    std::vector<uint64_t> h(bins, 0);
    const float scale = bins / (hi - lo);
    for (size_t i = 0; i < n; ++i) {
        float v = x[i];
        if (!(v >= lo && v <= hi))
            continue;  // also drops NaN
        int b = static_cast<int>((v - lo) * scale);
        if (b == bins)
            b = bins - 1;  // v == hi lands in the last bin
        ++h[b];
    }
    return h;
}
