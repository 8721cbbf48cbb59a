// ascendc-cpu: reductions. ReduceSum/ReduceMax/ReduceMin over `count` elements (the per-repeat partial results
// land in the work tensor, as on the NPU, so a work tensor that aliases live data is clobbered), and
// WholeReduceSum/WholeReduceMax/WholeReduceMin: one result per 256-byte repeat, under a mask. Sums add in pairs
// (a binary tree per repeat); half rounds, and saturates at +-65504, after every addition.
#pragma once

#include "ascendc_emu/vector.h"

namespace AscendC {
enum class ReduceOrder { ORDER_VALUE_INDEX, ORDER_INDEX_VALUE, ORDER_ONLY_VALUE, ORDER_ONLY_INDEX };
}

namespace ascendc_emu {

template <class T> inline calc_t<T> add_rounded(calc_t<T> a, calc_t<T> b) {
    calc_t<T> s = a + b;
    if constexpr (std::is_same_v<T, half>) {
        if (s > 65504.0f) s = 65504.0f;
        if (s < -65504.0f) s = -65504.0f;
    }
    return up(down<T>(s));
}

// pairwise sum of v[0..n), n a power of two or not (missing partners add nothing)
template <class T> inline calc_t<T> tree_sum(std::vector<calc_t<T>> v) {
    if (v.empty()) return 0;
    while (v.size() > 1) {
        size_t half_n = (v.size() + 1) / 2;
        for (size_t i = 0; i < half_n; i++) v[i] = 2 * i + 1 < v.size() ? add_rounded<T>(v[2 * i], v[2 * i + 1]) : v[2 * i];
        v.resize(half_n);
    }
    return v[0];
}

template <class T> constexpr uint32_t per_repeat() { return 256 / sizeof(T); }
template <class T> constexpr uint32_t per_block() { return 32 / sizeof(T); }

// the index of an element stored in a T-sized slot, as the NPU writes it (an integer's bits)
template <class T> inline T index_bits(uint32_t idx) {
    T out;
    if constexpr (sizeof(T) == 4) {
        uint32_t i = idx;
        std::memcpy(&out, &i, 4);
    } else {
        uint16_t i = static_cast<uint16_t>(idx);
        std::memcpy(&out, &i, 2);
    }
    return out;
}

template <class T, bool kMax>
void reduce_extreme(const AscendC::LocalTensor<T> &dst, const AscendC::LocalTensor<T> &src,
                    const AscendC::LocalTensor<T> &work, int32_t count, bool calIndex, const char *api, const Loc &loc) {
    floating_only<T>();
    uint32_t n = count_of(count, api, loc);
    if (n == 0) fail(kError, loc, "%s of 0 elements", api);
    src.aligned(api, loc);
    dst.aligned(api, loc);
    const T *s = src.use(n, false, api, loc);
    uint32_t repeats = (n + per_repeat<T>() - 1) / per_repeat<T>();
    uint32_t best = 0;
    for (uint32_t i = 1; i < n; i++) {
        auto a = up(s[i]), b = up(s[best]);
        if (std::isnan(a) && !std::isnan(b)) best = i;
        else if (kMax ? a > b : a < b) best = i;
    }
    T value = s[best];
    if (repeats > 1) {  // the per-repeat results pass through the work tensor
        T *w = work.use(repeats, true, api, loc);
        for (uint32_t r = 0; r < repeats; r++) w[r] = value;
    }
    T *d = dst.use(calIndex ? 2 : 1, true, api, loc);
    d[0] = value;
    if (calIndex) d[1] = index_bits<T>(best);
}

}  // namespace ascendc_emu

namespace AscendC {

template <class T>
void ReduceSum(const LocalTensor<T> &dst, const LocalTensor<T> &src, const LocalTensor<T> &sharedTmpBuffer,
               const int32_t count, ASCENDC_EMU_LOC) {
    using ascendc_emu::calc_t;
    ascendc_emu::floating_only<T>();
    uint32_t n = ascendc_emu::count_of(count, "ReduceSum", loc);
    src.aligned("ReduceSum", loc);
    dst.aligned("ReduceSum", loc);
    const T *s = src.use(n, false, "ReduceSum", loc);
    constexpr uint32_t E = ascendc_emu::per_repeat<T>();
    std::vector<calc_t<T>> partial;
    for (uint32_t r = 0; r * E < n; r++) {
        std::vector<calc_t<T>> v;
        for (uint32_t i = r * E; i < n && i < (r + 1) * E; i++) v.push_back(ascendc_emu::up(s[i]));
        partial.push_back(ascendc_emu::tree_sum<T>(v));
    }
    if (partial.size() > 1) {  // the partial sums pass through the work tensor
        T *w = sharedTmpBuffer.use(static_cast<uint32_t>(partial.size()), true, "ReduceSum", loc);
        for (size_t r = 0; r < partial.size(); r++) w[r] = ascendc_emu::down<T>(partial[r]);
    }
    while (partial.size() > 1) {  // the partials are summed the same way, a repeat at a time
        std::vector<calc_t<T>> next;
        for (size_t r = 0; r < partial.size(); r += E)
            next.push_back(ascendc_emu::tree_sum<T>(std::vector<calc_t<T>>(
                partial.begin() + r, partial.begin() + std::min(partial.size(), size_t(r + E)))));
        partial.swap(next);
    }
    T *d = dst.use(1, true, "ReduceSum", loc);
    d[0] = ascendc_emu::down<T>(partial.empty() ? calc_t<T>(0) : partial[0]);
}

template <class T>
void ReduceMax(const LocalTensor<T> &dst, const LocalTensor<T> &src, const LocalTensor<T> &sharedTmpBuffer,
               const int32_t count, bool calIndex = false, ASCENDC_EMU_LOC) {
    ascendc_emu::reduce_extreme<T, true>(dst, src, sharedTmpBuffer, count, calIndex, "ReduceMax", loc);
}

template <class T>
void ReduceMin(const LocalTensor<T> &dst, const LocalTensor<T> &src, const LocalTensor<T> &sharedTmpBuffer,
               const int32_t count, bool calIndex = false, ASCENDC_EMU_LOC) {
    ascendc_emu::reduce_extreme<T, false>(dst, src, sharedTmpBuffer, count, calIndex, "ReduceMin", loc);
}

}  // namespace AscendC

namespace ascendc_emu {

// The elements of repeat r a level-0 reduction reads: (element index in the repeat, offset in src), under the mask.
template <class T>
std::vector<std::pair<uint32_t, uint64_t>> repeat_elems(const uint64_t mask[2], int32_t r, int32_t srcBlkStride,
                                                         int32_t srcRepStride) {
    std::vector<std::pair<uint32_t, uint64_t>> out;
    for (uint32_t e = 0; e < per_repeat<T>(); e++) {
        if (!((mask[e / 64] >> (e % 64)) & 1)) continue;
        uint64_t off = (uint64_t(r) * srcRepStride * 32 + uint64_t(e / per_block<T>()) * srcBlkStride * 32) / sizeof(T) +
                       e % per_block<T>();
        out.emplace_back(e, off);
    }
    return out;
}

template <class T> inline void count_mask(int32_t mask, uint64_t out[2], const char *api, const Loc &loc) {
    if (mask < 1 || uint32_t(mask) > per_repeat<T>())
        fail(kError, loc, "%s: mask %d outside [1, %u] for %s", api, mask, per_repeat<T>(), type_name<T>());
    out[0] = mask >= 64 ? ~0ull : ((1ull << mask) - 1);
    out[1] = mask >= 128 ? ~0ull : (mask > 64 ? ((1ull << (mask - 64)) - 1) : 0);
}

template <class T>
void whole_reduce(const AscendC::LocalTensor<T> &dst, const AscendC::LocalTensor<T> &src, const uint64_t mask[2],
                  int32_t repeat, int32_t dstRepStride, int32_t srcBlkStride, int32_t srcRepStride, int kind,
                  AscendC::ReduceOrder order, const char *api, const Loc &loc) {
    floating_only<T>();
    if (repeat < 0 || repeat > 255) fail(kError, loc, "%s: repeatTime %d outside [0, 255]", api, repeat);
    if (repeat == 0) return;
    src.aligned(api, loc);
    using AscendC::ReduceOrder;
    bool pair = kind != 0 && (order == ReduceOrder::ORDER_VALUE_INDEX || order == ReduceOrder::ORDER_INDEX_VALUE);
    uint64_t last = 0;
    for (int32_t r = 0; r < repeat; r++)
        for (auto &eo : repeat_elems<T>(mask, r, srcBlkStride, srcRepStride)) last = std::max(last, eo.second + 1);
    const T *s = src.use(static_cast<uint32_t>(last), false, api, loc);
    uint64_t unit = pair ? 2 : 1;
    T *d = dst.use(static_cast<uint32_t>(uint64_t(repeat - 1) * dstRepStride * unit + unit), true, api, loc);
    for (int32_t r = 0; r < repeat; r++) {
        auto elems = repeat_elems<T>(mask, r, srcBlkStride, srcRepStride);
        T *out = d + uint64_t(r) * dstRepStride * unit;
        if (kind == 0) {
            std::vector<calc_t<T>> v(per_repeat<T>(), calc_t<T>(0));
            for (auto &eo : elems) v[eo.first] = up(s[eo.second]);
            out[0] = down<T>(tree_sum<T>(v));
            continue;
        }
        if (elems.empty()) continue;
        auto best = elems[0];
        for (auto &eo : elems) {
            auto a = up(s[eo.second]), b = up(s[best.second]);
            if (kind > 0 ? a > b : a < b) best = eo;
        }
        T value = s[best.second], index = index_bits<T>(best.first);
        switch (order) {
            case ReduceOrder::ORDER_VALUE_INDEX: out[0] = value; out[1] = index; break;
            case ReduceOrder::ORDER_INDEX_VALUE: out[0] = index; out[1] = value; break;
            case ReduceOrder::ORDER_ONLY_VALUE: out[0] = value; break;
            default: out[0] = index; break;
        }
    }
}

}  // namespace ascendc_emu

namespace AscendC {

#define ASCENDC_EMU_WHOLE(NAME, KIND, ORDER_PARAM, ORDER)                                                          \
    template <class T, bool isSetMask = true>                                                                      \
    void NAME(const LocalTensor<T> &dst, const LocalTensor<T> &src, const int32_t mask, const int32_t repeatTime,  \
              const int32_t dstRepStride, const int32_t srcBlkStride, const int32_t srcRepStride ORDER_PARAM,      \
              ASCENDC_EMU_LOC) {                                                                                   \
        uint64_t m[2];                                                                                             \
        ascendc_emu::count_mask<T>(mask, m, #NAME, loc);                                                           \
        ascendc_emu::whole_reduce(dst, src, m, repeatTime, dstRepStride, srcBlkStride, srcRepStride, KIND, ORDER,  \
                                  #NAME, loc);                                                                     \
    }                                                                                                              \
    template <class T, bool isSetMask = true>                                                                      \
    void NAME(const LocalTensor<T> &dst, const LocalTensor<T> &src, const uint64_t mask[], const int32_t repeatTime, \
              const int32_t dstRepStride, const int32_t srcBlkStride, const int32_t srcRepStride ORDER_PARAM,      \
              ASCENDC_EMU_LOC) {                                                                                   \
        uint64_t m[2] = {mask[0], sizeof(T) == 2 ? mask[1] : 0};                                                    \
        ascendc_emu::whole_reduce(dst, src, m, repeatTime, dstRepStride, srcBlkStride, srcRepStride, KIND, ORDER,  \
                                  #NAME, loc);                                                                     \
    }
#define ASCENDC_EMU_COMMA ,
ASCENDC_EMU_WHOLE(WholeReduceSum, 0, , ReduceOrder::ORDER_ONLY_VALUE)
ASCENDC_EMU_WHOLE(WholeReduceMax, 1, ASCENDC_EMU_COMMA const ReduceOrder order = ReduceOrder::ORDER_VALUE_INDEX, order)
ASCENDC_EMU_WHOLE(WholeReduceMin, -1, ASCENDC_EMU_COMMA const ReduceOrder order = ReduceOrder::ORDER_VALUE_INDEX, order)
#undef ASCENDC_EMU_COMMA
#undef ASCENDC_EMU_WHOLE

}  // namespace AscendC
