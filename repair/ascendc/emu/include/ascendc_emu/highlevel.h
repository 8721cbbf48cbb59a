// ascendc-cpu: AscendC's high-level reductions and SoftMax: Sum, Mean (rows of an [outter, inner] shape, n elements of
// each summed as a binary tree), CumSum, SoftMax/SimpleSoftMax over the last axis of [srcM, srcK] (its sum and max
// outputs one 32-byte block a row, every element of the block the row's value). The scratch buffers, the tiling and
// isBasicBlock change nothing here; shapes and operands are checked as the documentation states them.
#pragma once

#include "ascendc_emu/reduce.h"
#include "ascendc_emu/softmax_tiling.h"

namespace AscendC {

struct SumParams {
    uint32_t outter = 1;
    uint32_t inner = 0;
    uint32_t n = 0;
};
struct MeanParams {
    uint32_t outter = 1;
    uint32_t inner = 0;
    uint32_t n = 0;
};

}  // namespace AscendC

namespace ascendc_emu {

template <class T, class P> void check_rows(const P &p, const char *api, const Loc &loc) {
    if (p.outter == 0 || p.n == 0 || p.n > p.inner || (uint64_t(p.inner) * sizeof(T)) % 32 != 0)
        fail(kError, loc, "%s: outter %u, inner %u, n %u: the documentation asks 1 <= n <= inner and inner * sizeof(T) "
             "a multiple of 32 bytes", api, p.outter, p.inner, p.n);
}

// dst[o] = the row's sum (divided by n for a mean), computed in Acc
template <class T, class Acc, class P>
void row_sums(const AscendC::LocalTensor<T> &dst, const AscendC::LocalTensor<T> &src, const P &p, bool mean,
              const char *api, const Loc &loc) {
    check_rows<T>(p, api, loc);
    dst.aligned(api, loc);
    src.aligned(api, loc);
    const T *s = src.use(p.outter * p.inner, false, api, loc);
    T *d = dst.use(p.outter, true, api, loc);
    std::vector<T> out(p.outter);
    for (uint32_t o = 0; o < p.outter; o++) {
        std::vector<calc_t<Acc>> v(p.n);
        for (uint32_t k = 0; k < p.n; k++) v[k] = static_cast<calc_t<Acc>>(up(s[uint64_t(o) * p.inner + k]));
        calc_t<Acc> sum = tree_sum<Acc>(v);
        if (mean) sum = down<Acc>(sum / calc_t<Acc>(p.n));
        out[o] = static_cast<T>(sum);
    }
    std::copy(out.begin(), out.end(), d);
}

}  // namespace ascendc_emu

namespace AscendC {

template <class T, int32_t reduceDim = -1, bool isReuseSource = false, bool isBasicBlock = false>
void Sum(const LocalTensor<T> &dst, const LocalTensor<T> &src, const SumParams &sumParams, ASCENDC_EMU_LOC) {
    ascendc_emu::floating_only<T>();
    ascendc_emu::row_sums<T, T>(dst, src, sumParams, false, "Sum", loc);
}
template <class T, int32_t reduceDim = -1, bool isReuseSource = false, bool isBasicBlock = false>
void Sum(const LocalTensor<T> &dst, const LocalTensor<T> &src, const LocalTensor<uint8_t> &sharedTmpBuffer,
         const SumParams &sumParams, ASCENDC_EMU_LOC) {
    sharedTmpBuffer.aligned("Sum", loc);
    Sum<T, reduceDim, isReuseSource, isBasicBlock>(dst, src, sumParams, loc);
}

template <class T, class accType = T, bool isReuseSource = false, bool isBasicBlock = false, int32_t reduceDim = -1>
void Mean(const LocalTensor<T> &dst, const LocalTensor<T> &src, const MeanParams &meanParams, ASCENDC_EMU_LOC) {
    ascendc_emu::floating_only<T>();
    ascendc_emu::row_sums<T, accType>(dst, src, meanParams, true, "Mean", loc);
}
template <class T, class accType = T, bool isReuseSource = false, bool isBasicBlock = false, int32_t reduceDim = -1>
void Mean(const LocalTensor<T> &dst, const LocalTensor<T> &src, const LocalTensor<uint8_t> &sharedTmpBuffer,
          const MeanParams &meanParams, ASCENDC_EMU_LOC) {
    sharedTmpBuffer.aligned("Mean", loc);
    Mean<T, accType, isReuseSource, isBasicBlock, reduceDim>(dst, src, meanParams, loc);
}

// -- CumSum ---------------------------------------------------------------------------------------------------------

enum class CumSumAlgorithm { CUMSUM_ALGORITHM_LINEBYLINE = 0, CUMSUM_ALGORITHM_SKLANSKY = 1 };
struct CumSumConfig {
    bool isLastAxis{true};
    bool isReuseSource{false};
    bool outputLastRow{false};
    CumSumAlgorithm algorithm{CumSumAlgorithm::CUMSUM_ALGORITHM_LINEBYLINE};
};
constexpr CumSumConfig defaultCumSumConfig = {};
struct CumSumInfo {
    uint32_t outter{0};
    uint32_t inner{0};
};

// along the last axis (each row's running sum) or the first (each column's); lastRow: the result's last row
template <class T, const CumSumConfig &config = defaultCumSumConfig>
void CumSum(LocalTensor<T> &dst, LocalTensor<T> &lastRow, const LocalTensor<T> &src, const CumSumInfo &info,
            ASCENDC_EMU_LOC) {
    ascendc_emu::floating_only<T>();
    if (info.outter == 0 || info.inner == 0 || (uint64_t(info.inner) * sizeof(T)) % 32 != 0)
        ascendc_emu::fail(ascendc_emu::kError, loc, "CumSum: outter %u, inner %u: both must be positive and inner * "
                          "sizeof(T) a multiple of 32 bytes", info.outter, info.inner);
    uint64_t n = uint64_t(info.outter) * info.inner;
    dst.aligned("CumSum", loc);
    src.aligned("CumSum", loc);
    const T *s = src.use(uint32_t(n), false, "CumSum", loc);
    std::vector<T> out(s, s + n);
    for (uint32_t o = 0; o < info.outter; o++)
        for (uint32_t k = 0; k < info.inner; k++) {
            uint64_t i = uint64_t(o) * info.inner + k;
            if (config.isLastAxis ? k > 0 : o > 0) {
                uint64_t prev = config.isLastAxis ? i - 1 : i - info.inner;
                out[i] = ascendc_emu::down<T>(ascendc_emu::up(out[prev]) + ascendc_emu::up(out[i]));
            }
        }
    std::copy(out.begin(), out.end(), dst.use(uint32_t(n), true, "CumSum", loc));
    if (config.outputLastRow) {
        lastRow.aligned("CumSum", loc);
        std::copy(out.end() - info.inner, out.end(), lastRow.use(info.inner, true, "CumSum", loc));
    }
}
template <class T, const CumSumConfig &config = defaultCumSumConfig>
void CumSum(LocalTensor<T> &dst, LocalTensor<T> &lastRow, const LocalTensor<T> &src,
            LocalTensor<uint8_t> &sharedTmpBuffer, const CumSumInfo &info, ASCENDC_EMU_LOC) {
    sharedTmpBuffer.aligned("CumSum", loc);
    CumSum<T, config>(dst, lastRow, src, info, loc);
}

// -- SoftMax ---------------------------------------------------------------------------------------------------------

struct SoftMaxShapeInfo {
    uint32_t srcM = 0;
    uint32_t srcK = 0;
    uint32_t oriSrcM = 0;
    uint32_t oriSrcK = 0;
};
struct SoftmaxConfig {
    bool isCheckTiling = true;
    uint32_t oriSrcM = 0;
    uint32_t oriSrcK = 0;
    uint32_t mode = 0;
};
constexpr SoftmaxConfig SOFTMAX_DEFAULT_CFG = {};

}  // namespace AscendC

namespace ascendc_emu {

// The shape: SoftMaxShapeInfo's when given, else the tiling's (SoftMaxTilingFunc's srcM, srcK); oriSrcK (0: srcK) the
// elements of a row that count, the rest of the row's srcK left as they were
inline void softmax_shape(const AscendC::tiling::SoftMaxTiling &t, const AscendC::SoftMaxShapeInfo &i, uint32_t &m,
                          uint32_t &k, uint32_t &ori_k, size_t elem, const Loc &loc) {
    m = i.srcM ? i.srcM : t.srcM;
    k = i.srcK ? i.srcK : t.srcK;
    ori_k = i.oriSrcK ? i.oriSrcK : k;
    if (m == 0 || k == 0 || (uint64_t(k) * elem) % 32 != 0 || ori_k > k)
        fail(kError, loc, "SoftMax: shape [%u, %u] (original last axis %u): the last axis must be a whole number of "
             "32-byte blocks and hold the original one", m, k, ori_k);
}

// dst = exp(x - max) / sum per row; `given` (SimpleSoftMax): the rows' sum and max are read, not computed
template <class T, class S>
void softmax(const AscendC::LocalTensor<T> &dst, const AscendC::LocalTensor<S> *sum, const AscendC::LocalTensor<S> *max,
             const AscendC::LocalTensor<T> &src, const AscendC::tiling::SoftMaxTiling &tiling,
             const AscendC::SoftMaxShapeInfo &info, bool given, const char *api, const Loc &loc) {
    floating_only<T>();
    uint32_t m, k, ori;
    softmax_shape(tiling, info, m, k, ori, sizeof(T), loc);
    constexpr uint32_t SB = 32 / sizeof(S);
    dst.aligned(api, loc);
    src.aligned(api, loc);
    const T *x = src.use(m * k, false, api, loc);
    S *ps = sum ? sum->use(m * SB, !given, api, loc) : nullptr;
    S *pm = max ? max->use(m * SB, !given, api, loc) : nullptr;
    std::vector<T> out(x, x + uint64_t(m) * k);
    for (uint32_t r = 0; r < m; r++) {
        const T *row = x + uint64_t(r) * k;
        float mx, total;
        if (given) {
            mx = float(pm[r * SB]);
            total = float(ps[r * SB]);
        } else {
            mx = -std::numeric_limits<float>::infinity();
            for (uint32_t c = 0; c < ori; c++) mx = std::max(mx, float(up(row[c])));
            std::vector<float> e(ori);
            for (uint32_t c = 0; c < ori; c++) e[c] = std::exp(float(up(row[c])) - mx);
            total = tree_sum<float>(e);
        }
        for (uint32_t c = 0; c < ori; c++)
            out[uint64_t(r) * k + c] = down<T>(static_cast<calc_t<T>>(std::exp(float(up(row[c])) - mx) / total));
        if (!given) {
            for (uint32_t e = 0; e < SB && ps; e++) ps[r * SB + e] = static_cast<S>(total);
            for (uint32_t e = 0; e < SB && pm; e++) pm[r * SB + e] = static_cast<S>(mx);
        }
    }
    std::copy(out.begin(), out.end(), dst.use(m * k, true, api, loc));
}

}  // namespace ascendc_emu

namespace AscendC {

template <class T, bool isReuseSource = false, bool isBasicBlock = false, const SoftmaxConfig &config = SOFTMAX_DEFAULT_CFG>
void SoftMax(const LocalTensor<T> &dst, const LocalTensor<T> &src, const tiling::SoftMaxTiling &tiling,
             const SoftMaxShapeInfo &info = {}, ASCENDC_EMU_LOC) {
    ascendc_emu::softmax<T, T>(dst, nullptr, nullptr, src, tiling, info, false, "SoftMax", loc);
}
template <class T, bool isReuseSource = false, bool isBasicBlock = false, const SoftmaxConfig &config = SOFTMAX_DEFAULT_CFG>
void SoftMax(const LocalTensor<T> &dst, const LocalTensor<T> &src, const LocalTensor<uint8_t> &sharedTmpBuffer,
             const tiling::SoftMaxTiling &tiling, const SoftMaxShapeInfo &info = {}, ASCENDC_EMU_LOC) {
    sharedTmpBuffer.aligned("SoftMax", loc);
    ascendc_emu::softmax<T, T>(dst, nullptr, nullptr, src, tiling, info, false, "SoftMax", loc);
}
template <class T, bool isReuseSource = false, bool isBasicBlock = false, bool isDataFormatNZ = false,
          const SoftmaxConfig &config = SOFTMAX_DEFAULT_CFG, class S>
void SoftMax(const LocalTensor<T> &dst, const LocalTensor<S> &sum, const LocalTensor<S> &max, const LocalTensor<T> &src,
             const tiling::SoftMaxTiling &tiling, const SoftMaxShapeInfo &info = {}, ASCENDC_EMU_LOC) {
    static_assert(!isDataFormatNZ, "ascendc-cpu does not emulate SoftMax in the NZ format");
    ascendc_emu::softmax<T, S>(dst, &sum, &max, src, tiling, info, false, "SoftMax", loc);
}
template <class T, bool isReuseSource = false, bool isBasicBlock = false, bool isDataFormatNZ = false,
          const SoftmaxConfig &config = SOFTMAX_DEFAULT_CFG, class S>
void SoftMax(const LocalTensor<T> &dst, const LocalTensor<S> &sum, const LocalTensor<S> &max, const LocalTensor<T> &src,
             const LocalTensor<uint8_t> &sharedTmpBuffer, const tiling::SoftMaxTiling &tiling,
             const SoftMaxShapeInfo &info = {}, ASCENDC_EMU_LOC) {
    static_assert(!isDataFormatNZ, "ascendc-cpu does not emulate SoftMax in the NZ format");
    sharedTmpBuffer.aligned("SoftMax", loc);
    ascendc_emu::softmax<T, S>(dst, &sum, &max, src, tiling, info, false, "SoftMax", loc);
}
// SimpleSoftMax: the rows' sum and max given (as SoftMax leaves them)
template <class T, bool isReuseSource = false, bool isBasicBlock = false, bool isDataFormatNZ = false,
          const SoftmaxConfig &config = SOFTMAX_DEFAULT_CFG, class S>
void SimpleSoftMax(const LocalTensor<T> &dst, const LocalTensor<S> &sum, const LocalTensor<S> &max,
                   const LocalTensor<T> &src, const tiling::SoftMaxTiling &tiling, const SoftMaxShapeInfo &info = {},
                   ASCENDC_EMU_LOC) {
    static_assert(!isDataFormatNZ, "ascendc-cpu does not emulate SimpleSoftMax in the NZ format");
    ascendc_emu::softmax<T, S>(dst, &sum, &max, src, tiling, info, true, "SimpleSoftMax", loc);
}

}  // namespace AscendC
