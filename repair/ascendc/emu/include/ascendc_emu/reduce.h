// ascendc-cpu: reductions. ReduceSum/ReduceMax/ReduceMin over `count` elements (the per-repeat partial results
// land in the work tensor, as on the NPU, so a work tensor that aliases live data is clobbered), and
// WholeReduceSum/WholeReduceMax/WholeReduceMin: one result per 256-byte repeat, under a mask; BlockReduceSum/Max/Min
// (one per 32-byte block), PairReduceSum (one per two elements), the level-0 ReduceSum/Max/Min, and
// GetReduceMaxMinCount. Sums add in pairs (a binary tree per repeat); half rounds, and saturates at +-65504, after
// every addition.
#pragma once

#include "ascendc_emu/mask.h"

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

// what GetReduceMaxMinCount reads: the best value of the last WholeReduceMax/Min (or ReduceMax/Min) over all its
// repeats, and its index counted across the repeats, both as T's bits
template <class T> void record_extreme(T value, uint32_t index) {
    g_block.reduce_set = true;
    g_block.reduce_value = bits_of(value);
    g_block.reduce_index = bits_of(index_bits<T>(index));
    g_block.reduce_size = sizeof(T);
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
    record_extreme<T>(value, best);
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

template <class T>
void whole_reduce(const AscendC::LocalTensor<T> &dst, const AscendC::LocalTensor<T> &src, const Repeats &rp,
                  int32_t dstRepStride, int32_t srcBlkStride, int32_t srcRepStride, int kind,
                  AscendC::ReduceOrder order, const char *api, const Loc &loc) {
    floating_only<T>();
    if (rp.n == 0) return;
    src.aligned(api, loc);
    using AscendC::ReduceOrder;
    bool pair = kind != 0 && (order == ReduceOrder::ORDER_VALUE_INDEX || order == ReduceOrder::ORDER_INDEX_VALUE);
    const T *s = src.use(static_cast<uint32_t>(reach<T>(rp, srcBlkStride, srcRepStride)), false, api, loc);
    uint64_t unit = pair ? 2 : 1;
    T *d = dst.use(static_cast<uint32_t>(uint64_t(rp.n - 1) * dstRepStride * unit + unit), true, api, loc);
    bool any = false;
    T overall{};
    uint32_t overall_index = 0;
    for (int64_t r = 0; r < rp.n; r++) {
        auto elems = repeat_elems<T>(rp, r, srcBlkStride, srcRepStride);
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
        if (!any || (kind > 0 ? up(value) > up(overall) : up(value) < up(overall))) {
            overall = value;
            overall_index = uint32_t(r * per_repeat<T>() + best.first);
            any = true;
        }
        switch (order) {
            case ReduceOrder::ORDER_VALUE_INDEX: out[0] = value; out[1] = index; break;
            case ReduceOrder::ORDER_INDEX_VALUE: out[0] = index; out[1] = value; break;
            case ReduceOrder::ORDER_ONLY_VALUE: out[0] = value; break;
            default: out[0] = index; break;
        }
    }
    if (any) record_extreme<T>(overall, overall_index);
}

}  // namespace ascendc_emu

namespace AscendC {

#define ASCENDC_EMU_WHOLE(NAME, KIND, ORDER_PARAM, ORDER)                                                          \
    template <class T, bool isSetMask = true>                                                                      \
    void NAME(const LocalTensor<T> &dst, const LocalTensor<T> &src, const int32_t mask, const int32_t repeatTime,  \
              const int32_t dstRepStride, const int32_t srcBlkStride, const int32_t srcRepStride ORDER_PARAM,      \
              ASCENDC_EMU_LOC) {                                                                                   \
        uint64_t m[2];                                                                                             \
        ascendc_emu::given_mask<T, isSetMask>(mask, m, #NAME, loc);                                                \
        auto rp = ascendc_emu::level0_repeats<T>(isSetMask, m, repeatTime, #NAME, loc);                            \
        ascendc_emu::whole_reduce(dst, src, rp, dstRepStride, srcBlkStride, srcRepStride, KIND, ORDER, #NAME, loc);  \
    }                                                                                                              \
    template <class T, bool isSetMask = true>                                                                      \
    void NAME(const LocalTensor<T> &dst, const LocalTensor<T> &src, const uint64_t mask[], const int32_t repeatTime, \
              const int32_t dstRepStride, const int32_t srcBlkStride, const int32_t srcRepStride ORDER_PARAM,      \
              ASCENDC_EMU_LOC) {                                                                                   \
        uint64_t m[2];                                                                                             \
        ascendc_emu::given_mask<T, isSetMask>(mask, m);                                                            \
        auto rp = ascendc_emu::level0_repeats<T>(isSetMask, m, repeatTime, #NAME, loc);                            \
        ascendc_emu::whole_reduce(dst, src, rp, dstRepStride, srcBlkStride, srcRepStride, KIND, ORDER, #NAME, loc);  \
    }
#define ASCENDC_EMU_COMMA ,
ASCENDC_EMU_WHOLE(WholeReduceSum, 0, , ReduceOrder::ORDER_ONLY_VALUE)
ASCENDC_EMU_WHOLE(WholeReduceMax, 1, ASCENDC_EMU_COMMA const ReduceOrder order = ReduceOrder::ORDER_VALUE_INDEX, order)
ASCENDC_EMU_WHOLE(WholeReduceMin, -1, ASCENDC_EMU_COMMA const ReduceOrder order = ReduceOrder::ORDER_VALUE_INDEX, order)
#undef ASCENDC_EMU_COMMA
#undef ASCENDC_EMU_WHOLE

// GetReduceMaxMinCount: the last WholeReduceMax/Min's (or ReduceMax/Min's) best value over all its repeats and
// that element's index counted across them (r * elements per repeat + its place in repeat r), stored as T's bits
template <class T> void GetReduceMaxMinCount(T &maxMinValue, T &maxMinIndex, ASCENDC_EMU_LOC) {
    const ascendc_emu::Block &b = ascendc_emu::g_block;
    if (!b.reduce_set || b.reduce_size != sizeof(T))
        ascendc_emu::fail(ascendc_emu::kError, loc, "GetReduceMaxMinCount<%s> with no WholeReduceMax/WholeReduceMin "
                          "(or ReduceMax/ReduceMin) of %s before it", ascendc_emu::type_name<T>(),
                          ascendc_emu::type_name<T>());
    maxMinValue = ascendc_emu::from_bits<T>(b.reduce_value);
    maxMinIndex = ascendc_emu::from_bits<T>(b.reduce_index);
}
template <class T> void GetReduceMaxMinCount(T &maxMinValue, ASCENDC_EMU_LOC) {
    T index;
    GetReduceMaxMinCount<T>(maxMinValue, index, loc);
}

}  // namespace AscendC

namespace ascendc_emu {

// BlockReduceSum/Max/Min: each 32-byte block of each repeat to one element, the 8 of repeat r at
// dst[r * dstRepStride * 8 + block]. A sum adds in pairs within the block (masked-out elements add 0; half
// saturates at +-65504); a block the mask leaves empty sums to 0, and Max/Min leave its output as it was.
template <class T>
void block_reduce(const AscendC::LocalTensor<T> &dst, const AscendC::LocalTensor<T> &src, const Repeats &rp,
                  int32_t dstRepStride, int32_t srcBlkStride, int32_t srcRepStride, int kind, const char *api,
                  const Loc &loc) {
    floating_only<T>();
    if (rp.n == 0) return;
    src.aligned(api, loc);
    uint64_t off = dst.GetPhyAddr();
    if (off % (8 * sizeof(T)) != 0)
        fail(kError, loc, "%s: the destination starts at UB offset %llu, not %zu-byte aligned", api,
             (unsigned long long)off, 8 * sizeof(T));
    if (dstRepStride < 0 || srcBlkStride < 0 || srcRepStride < 0)
        fail(kError, loc, "%s: a negative stride", api);
    const T *s = src.use(static_cast<uint32_t>(reach<T>(rp, srcBlkStride, srcRepStride)), false, api, loc);
    T *d = dst.use(static_cast<uint32_t>(uint64_t(rp.n - 1) * dstRepStride * 8 + 8), true, api, loc);
    constexpr uint32_t B = per_block<T>();
    for (int64_t r = 0; r < rp.n; r++) {
        auto elems = repeat_elems<T>(rp, r, srcBlkStride, srcRepStride);
        std::vector<std::vector<calc_t<T>>> sums(8, std::vector<calc_t<T>>(B, calc_t<T>(0)));
        std::vector<int> best(8, -1);  // Max/Min: the element of elems each block keeps
        for (size_t i = 0; i < elems.size(); i++) {
            uint32_t k = elems[i].first / B;
            auto v = up(s[elems[i].second]);
            if (kind == 0) {
                sums[k][elems[i].first % B] = v;
            } else if (best[k] < 0) {
                best[k] = int(i);
            } else {
                auto b = up(s[elems[best[k]].second]);
                if (kind > 0 ? v > b : v < b) best[k] = int(i);  // the first of equals, as WholeReduceMax/Min
            }
        }
        T out[8];
        for (uint32_t k = 0; k < 8; k++)
            if (kind == 0) out[k] = down<T>(tree_sum<T>(sums[k]));
            else if (best[k] >= 0) out[k] = s[elems[best[k]].second];
        T *o = d + uint64_t(r) * dstRepStride * 8;
        for (uint32_t k = 0; k < 8; k++)
            if (kind == 0 || best[k] >= 0) o[k] = out[k];
    }
}

}  // namespace ascendc_emu

namespace AscendC {

#define ASCENDC_EMU_BLOCK(NAME, KIND)                                                                              \
    template <class T, bool isSetMask = true>                                                                      \
    void NAME(const LocalTensor<T> &dst, const LocalTensor<T> &src, const int32_t repeatTime, const int32_t mask,  \
              const int32_t dstRepStride, const int32_t srcBlkStride, const int32_t srcRepStride,                  \
              ASCENDC_EMU_LOC) {                                                                                   \
        uint64_t m[2];                                                                                             \
        ascendc_emu::given_mask<T, isSetMask>(mask, m, #NAME, loc);                                                \
        auto rp = ascendc_emu::level0_repeats<T>(isSetMask, m, repeatTime, #NAME, loc);                            \
        ascendc_emu::block_reduce(dst, src, rp, dstRepStride, srcBlkStride, srcRepStride, KIND, #NAME, loc);       \
    }                                                                                                              \
    template <class T, bool isSetMask = true>                                                                      \
    void NAME(const LocalTensor<T> &dst, const LocalTensor<T> &src, const int32_t repeatTime,                      \
              const uint64_t mask[], const int32_t dstRepStride, const int32_t srcBlkStride,                       \
              const int32_t srcRepStride, ASCENDC_EMU_LOC) {                                                       \
        uint64_t m[2];                                                                                             \
        ascendc_emu::given_mask<T, isSetMask>(mask, m);                                                            \
        auto rp = ascendc_emu::level0_repeats<T>(isSetMask, m, repeatTime, #NAME, loc);                            \
        ascendc_emu::block_reduce(dst, src, rp, dstRepStride, srcBlkStride, srcRepStride, KIND, #NAME, loc);       \
    }
ASCENDC_EMU_BLOCK(BlockReduceSum, 0)
ASCENDC_EMU_BLOCK(BlockReduceMax, 1)
ASCENDC_EMU_BLOCK(BlockReduceMin, -1)
#undef ASCENDC_EMU_BLOCK

}  // namespace AscendC

namespace ascendc_emu {

// PairReduceSum: each two neighbouring elements of a repeat to one (a masked-out element adds 0), the
// per_repeat / 2 results of repeat r at dst[r * dstRepStride * per_repeat / 2 + e / 2]
template <class T>
void pair_reduce(const AscendC::LocalTensor<T> &dst, const AscendC::LocalTensor<T> &src, const Repeats &rp,
                 int32_t dstRepStride, int32_t srcBlkStride, int32_t srcRepStride, const char *api, const Loc &loc) {
    floating_only<T>();
    if (rp.n == 0) return;
    src.aligned(api, loc);
    dst.aligned(api, loc);
    constexpr uint32_t H = per_repeat<T>() / 2;
    const T *s = src.use(static_cast<uint32_t>(reach<T>(rp, srcBlkStride, srcRepStride)), false, api, loc);
    T *d = dst.use(static_cast<uint32_t>(uint64_t(rp.n - 1) * dstRepStride * H + H), true, api, loc);
    for (int64_t r = 0; r < rp.n; r++) {
        std::vector<calc_t<T>> v(per_repeat<T>(), calc_t<T>(0));
        for (auto &eo : repeat_elems<T>(rp, r, srcBlkStride, srcRepStride)) v[eo.first] = up(s[eo.second]);
        T *o = d + uint64_t(r) * dstRepStride * H;
        for (uint32_t k = 0; k < H; k++) o[k] = down<T>(add_rounded<T>(v[2 * k], v[2 * k + 1]));
    }
}

// ReduceSum/Max/Min over the masked elements of `repeat` repeats (srcRepStride blocks apart): dst[0] the result and,
// for Max/Min with calIndex, dst[1] its index counted across the repeats, as T's bits. The per-repeat results pass
// through the work tensor, as in the count form; a sum adds each repeat in pairs, then the repeats' sums in pairs.
template <class T>
void reduce_l0(const AscendC::LocalTensor<T> &dst, const AscendC::LocalTensor<T> &src,
               const AscendC::LocalTensor<T> &work, const Repeats &rp, int32_t srcRepStride, bool calIndex, int kind,
               const char *api, const Loc &loc) {
    floating_only<T>();
    if (rp.n == 0) return;
    src.aligned(api, loc);
    dst.aligned(api, loc);
    const T *s = src.use(static_cast<uint32_t>(reach<T>(rp, 1, srcRepStride)), false, api, loc);
    std::vector<calc_t<T>> partial;
    bool any = false;
    T best{};
    uint32_t best_index = 0;
    for (int64_t r = 0; r < rp.n; r++) {
        auto elems = repeat_elems<T>(rp, r, 1, srcRepStride);
        if (kind == 0) {
            std::vector<calc_t<T>> v(per_repeat<T>(), calc_t<T>(0));
            for (auto &eo : elems) v[eo.first] = up(s[eo.second]);
            partial.push_back(tree_sum<T>(v));
            continue;
        }
        for (auto &eo : elems) {
            auto a = up(s[eo.second]);
            if (!any || (kind > 0 ? a > up(best) : a < up(best))) {
                best = s[eo.second];
                best_index = uint32_t(r * per_repeat<T>() + eo.first);
                any = true;
            }
        }
    }
    if (kind != 0 && !any) fail(kError, loc, "%s: the mask enables no element", api);
    if (rp.n > 1) {
        T *w = work.use(static_cast<uint32_t>(rp.n), true, api, loc);
        for (int64_t r = 0; r < rp.n; r++) w[r] = kind == 0 ? down<T>(partial[r]) : best;
    }
    T *d = dst.use(kind != 0 && calIndex ? 2 : 1, true, api, loc);
    if (kind == 0) {
        d[0] = down<T>(tree_sum<T>(partial));
        return;
    }
    record_extreme<T>(best, best_index);
    d[0] = best;
    if (calIndex) d[1] = index_bits<T>(best_index);
}

}  // namespace ascendc_emu

namespace AscendC {

template <class T, bool isSetMask = true>
void PairReduceSum(const LocalTensor<T> &dst, const LocalTensor<T> &src, const int32_t repeatTime, const int32_t mask,
                   const int32_t dstRepStride, const int32_t srcBlkStride, const int32_t srcRepStride,
                   ASCENDC_EMU_LOC) {
    uint64_t m[2];
    ascendc_emu::given_mask<T, isSetMask>(mask, m, "PairReduceSum", loc);
    auto rp = ascendc_emu::level0_repeats<T>(isSetMask, m, repeatTime, "PairReduceSum", loc);
    ascendc_emu::pair_reduce(dst, src, rp, dstRepStride, srcBlkStride, srcRepStride, "PairReduceSum", loc);
}
template <class T, bool isSetMask = true>
void PairReduceSum(const LocalTensor<T> &dst, const LocalTensor<T> &src, const int32_t repeatTime,
                   const uint64_t mask[], const int32_t dstRepStride, const int32_t srcBlkStride,
                   const int32_t srcRepStride, ASCENDC_EMU_LOC) {
    uint64_t m[2];
    ascendc_emu::given_mask<T, isSetMask>(mask, m);
    auto rp = ascendc_emu::level0_repeats<T>(isSetMask, m, repeatTime, "PairReduceSum", loc);
    ascendc_emu::pair_reduce(dst, src, rp, dstRepStride, srcBlkStride, srcRepStride, "PairReduceSum", loc);
}

#define ASCENDC_EMU_REDUCE_L0(NAME, KIND)                                                                          \
    template <class T, bool isSetMask = true>                                                                      \
    void NAME(const LocalTensor<T> &dst, const LocalTensor<T> &src, const LocalTensor<T> &sharedTmpBuffer,         \
              const int32_t mask, const int32_t repeatTime, const int32_t srcRepStride, bool calIndex = false,     \
              ASCENDC_EMU_LOC) {                                                                                   \
        uint64_t m[2];                                                                                             \
        ascendc_emu::given_mask<T, isSetMask>(mask, m, #NAME, loc);                                                \
        auto rp = ascendc_emu::level0_repeats<T>(isSetMask, m, repeatTime, #NAME, loc);                            \
        ascendc_emu::reduce_l0(dst, src, sharedTmpBuffer, rp, srcRepStride, calIndex, KIND, #NAME, loc);            \
    }                                                                                                              \
    template <class T, bool isSetMask = true>                                                                      \
    void NAME(const LocalTensor<T> &dst, const LocalTensor<T> &src, const LocalTensor<T> &sharedTmpBuffer,         \
              const uint64_t mask[], const int32_t repeatTime, const int32_t srcRepStride, bool calIndex = false,  \
              ASCENDC_EMU_LOC) {                                                                                   \
        uint64_t m[2];                                                                                             \
        ascendc_emu::given_mask<T, isSetMask>(mask, m);                                                            \
        auto rp = ascendc_emu::level0_repeats<T>(isSetMask, m, repeatTime, #NAME, loc);                            \
        ascendc_emu::reduce_l0(dst, src, sharedTmpBuffer, rp, srcRepStride, calIndex, KIND, #NAME, loc);            \
    }
ASCENDC_EMU_REDUCE_L0(ReduceSum, 0)
ASCENDC_EMU_REDUCE_L0(ReduceMax, 1)
ASCENDC_EMU_REDUCE_L0(ReduceMin, -1)
#undef ASCENDC_EMU_REDUCE_L0

}  // namespace AscendC
