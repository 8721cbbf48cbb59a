// Cache-oblivious batched "transpose then add":  Y[b] = X[b]^T + Z[b].
//
// The matrix is split recursively along its longer side until the block
// fits comfortably in L1; leaves are done with a straightforward double loop.
// No tile size to tune, works for any shape.
#include <cstddef>
#include <cstdint>
#include <thread>
#include <vector>

namespace layout {

template <typename T>
struct View2D {
    const T* p;
    std::ptrdiff_t rs, cs;  // row / column stride in elements
    const T& at(std::ptrdiff_t r, std::ptrdiff_t c) const { return p[r * rs + c * cs]; }
};

template <typename T>
static void leaf(View2D<T> x, View2D<T> z, T* y, std::ptrdiff_t ldy,
                 std::ptrdiff_t r0, std::ptrdiff_t r1, std::ptrdiff_t c0, std::ptrdiff_t c1)
{
    // x is indexed (r, c); y and z are indexed (c, r)
    for (std::ptrdiff_t c = c0; c < c1; ++c)
        for (std::ptrdiff_t r = r0; r < r1; ++r)
            y[c * ldy + r] = x.at(r, c) + z.at(c, r);
}

template <typename T>
static void rec(View2D<T> x, View2D<T> z, T* y, std::ptrdiff_t ldy,
                std::ptrdiff_t r0, std::ptrdiff_t r1, std::ptrdiff_t c0, std::ptrdiff_t c1)
{
    constexpr std::ptrdiff_t kLeaf = 32;
    const std::ptrdiff_t nr = r1 - r0, nc = c1 - c0;
    if (nr <= kLeaf && nc <= kLeaf) {
        leaf(x, z, y, ldy, r0, r1, c0, c1);
    } else if (nr >= nc) {
        const std::ptrdiff_t mid = r0 + nr / 2;
        rec(x, z, y, ldy, r0, mid, c0, c1);
        rec(x, z, y, ldy, mid, r1, c0, c1);
    } else {
        const std::ptrdiff_t mid = c0 + nc / 2;
        rec(x, z, y, ldy, r0, r1, c0, mid);
        rec(x, z, y, ldy, r0, r1, mid, c1);
    }
}

// X: [B, R, C] contiguous, Z: [B, C, R] contiguous, Y: [B, C, R] contiguous
template <typename T>
void transpose_add_batched(const T* X, const T* Z, T* Y, int B, int R, int C,
                           unsigned n_threads = std::thread::hardware_concurrency())
{
    const std::ptrdiff_t plane = std::ptrdiff_t(R) * C;
    auto work = [&](int b) {
        View2D<T> x{X + b * plane, C, 1};
        View2D<T> z{Z + b * plane, R, 1};
        rec(x, z, Y + b * plane, R, 0, R, 0, C);
    };
    if (n_threads <= 1 || B == 1) {
        for (int b = 0; b < B; ++b) work(b);
        return;
    }
    std::vector<std::thread> pool;
    for (unsigned t = 0; t < n_threads; ++t)
        pool.emplace_back([&, t] {
            for (int b = int(t); b < B; b += int(n_threads)) work(b);
        });
    for (auto& th : pool) th.join();
}

template void transpose_add_batched<float>(const float*, const float*, float*, int, int, int, unsigned);
template void transpose_add_batched<double>(const double*, const double*, double*, int, int, int, unsigned);

}  // namespace layout
