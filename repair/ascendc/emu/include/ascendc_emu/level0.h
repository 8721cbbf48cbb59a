// ascendc-cpu: the level-0 forms of the binary (And, Or too), unary (Not too) and scalar instructions, Copy and Compare: a mask (a count of leading elements, or two
// 64-bit masks; with isSetMask = false the mask register, see mask.h), repeats of 256 bytes, and block and repeat
// strides in 32-byte units (BinaryRepeatParams). Every operand is checked as in the count form, up to the last
// element a repeat reaches.
#pragma once

#include "ascendc_emu/reduce.h"

namespace AscendC {

struct BinaryRepeatParams {
    uint8_t dstBlkStride = 1, src0BlkStride = 1, src1BlkStride = 1;
    uint8_t dstRepStride = 8, src0RepStride = 8, src1RepStride = 8;
    BinaryRepeatParams() = default;
    BinaryRepeatParams(uint8_t dstBlk, uint8_t src0Blk, uint8_t src1Blk, uint8_t dstRep, uint8_t src0Rep,
                       uint8_t src1Rep)
        : dstBlkStride(dstBlk), src0BlkStride(src0Blk), src1BlkStride(src1Blk), dstRepStride(dstRep),
          src0RepStride(src0Rep), src1RepStride(src1Rep) {}
};

struct UnaryRepeatParams {
    uint16_t dstBlkStride = 1, srcBlkStride = 1;
    uint8_t dstRepStride = 8, srcRepStride = 8;
    UnaryRepeatParams() = default;
    UnaryRepeatParams(uint16_t dstBlk, uint16_t srcBlk, uint8_t dstRep, uint8_t srcRep)
        : dstBlkStride(dstBlk), srcBlkStride(srcBlk), dstRepStride(dstRep), srcRepStride(srcRep) {}
};

}  // namespace AscendC

namespace ascendc_emu {

// each repeat reads its operand whole before it writes
template <class T, class F>
void unary_l0(const AscendC::LocalTensor<T> &dst, const AscendC::LocalTensor<T> &src, const Repeats &rp,
              const AscendC::UnaryRepeatParams &p, const char *api, const Loc &loc, F f) {
    if (rp.n == 0) return;
    dst.aligned(api, loc);
    src.aligned(api, loc);
    const T *x = src.use(uint32_t(reach<T>(rp, p.srcBlkStride, p.srcRepStride)), false, api, loc);
    T *d = dst.use(uint32_t(reach<T>(rp, p.dstBlkStride, p.dstRepStride)), true, api, loc);
    for (int64_t r = 0; r < rp.n; r++) {
        auto ed = repeat_elems<T>(rp, r, p.dstBlkStride, p.dstRepStride);
        auto es = repeat_elems<T>(rp, r, p.srcBlkStride, p.srcRepStride);
        std::vector<T> out(ed.size());
        for (size_t i = 0; i < ed.size(); i++) out[i] = f(x[es[i].second]);
        for (size_t i = 0; i < ed.size(); i++) d[ed[i].second] = out[i];
    }
}


// each repeat reads its operands whole before it writes, as the vector unit does
template <class T, class F>
void binary_l0(const AscendC::LocalTensor<T> &dst, const AscendC::LocalTensor<T> &a, const AscendC::LocalTensor<T> &b,
               const Repeats &rp, const AscendC::BinaryRepeatParams &p, const char *api, const Loc &loc, F f) {
    if (rp.n == 0) return;
    dst.aligned(api, loc);
    a.aligned(api, loc);
    b.aligned(api, loc);
    const T *x = a.use(uint32_t(reach<T>(rp, p.src0BlkStride, p.src0RepStride)), false, api, loc);
    const T *y = b.use(uint32_t(reach<T>(rp, p.src1BlkStride, p.src1RepStride)), false, api, loc);
    T *d = dst.use(uint32_t(reach<T>(rp, p.dstBlkStride, p.dstRepStride)), true, api, loc);
    for (int64_t r = 0; r < rp.n; r++) {
        auto ed = repeat_elems<T>(rp, r, p.dstBlkStride, p.dstRepStride);
        auto ea = repeat_elems<T>(rp, r, p.src0BlkStride, p.src0RepStride);
        auto eb = repeat_elems<T>(rp, r, p.src1BlkStride, p.src1RepStride);
        std::vector<T> out(ed.size());
        for (size_t i = 0; i < ed.size(); i++) out[i] = down<T>(f(up(x[ea[i].second]), up(y[eb[i].second])));
        for (size_t i = 0; i < ed.size(); i++) d[ed[i].second] = out[i];
    }
}

}  // namespace ascendc_emu

namespace AscendC {

#define ASCENDC_EMU_BINARY_L0(NAME, EXPR)                                                                        \
    template <class T, bool isSetMask = true>                                                                   \
    void NAME(const LocalTensor<T> &dst, const LocalTensor<T> &src0, const LocalTensor<T> &src1, uint64_t mask,   \
              const uint8_t repeatTimes, const BinaryRepeatParams &repeatParams, ASCENDC_EMU_LOC) {             \
        uint64_t m[2];                                                                                          \
        ascendc_emu::given_mask<T, isSetMask>(int64_t(mask), m, #NAME, loc);                                    \
        auto rp = ascendc_emu::level0_repeats<T>(isSetMask, m, repeatTimes, #NAME, loc);                        \
        ascendc_emu::binary_l0(dst, src0, src1, rp, repeatParams, #NAME, loc,                                   \
                               [](auto a, auto b) { return EXPR; });                                            \
    }                                                                                                           \
    template <class T, bool isSetMask = true>                                                                   \
    void NAME(const LocalTensor<T> &dst, const LocalTensor<T> &src0, const LocalTensor<T> &src1,                 \
              const uint64_t mask[], const uint8_t repeatTimes, const BinaryRepeatParams &repeatParams,         \
              ASCENDC_EMU_LOC) {                                                                                \
        uint64_t m[2];                                                                                          \
        ascendc_emu::given_mask<T, isSetMask>(mask, m);                                                         \
        auto rp = ascendc_emu::level0_repeats<T>(isSetMask, m, repeatTimes, #NAME, loc);                        \
        ascendc_emu::binary_l0(dst, src0, src1, rp, repeatParams, #NAME, loc,                                   \
                               [](auto a, auto b) { return EXPR; });                                            \
    }
ASCENDC_EMU_BINARY_L0(Add, a + b)
ASCENDC_EMU_BINARY_L0(Sub, a - b)
ASCENDC_EMU_BINARY_L0(Mul, a * b)
ASCENDC_EMU_BINARY_L0(Div, a / b)
ASCENDC_EMU_BINARY_L0(Max, ascendc_emu::nan_max(a, b))
ASCENDC_EMU_BINARY_L0(Min, ascendc_emu::nan_min(a, b))
ASCENDC_EMU_BINARY_L0(And, a & b)
ASCENDC_EMU_BINARY_L0(Or, a | b)
#undef ASCENDC_EMU_BINARY_L0

#define ASCENDC_EMU_UNARY_L0(NAME, EXPR, FLOAT_ONLY)                                                             \
    template <class T, bool isSetMask = true>                                                                   \
    void NAME(const LocalTensor<T> &dst, const LocalTensor<T> &src, uint64_t mask, const uint8_t repeatTimes,    \
              const UnaryRepeatParams &repeatParams, ASCENDC_EMU_LOC) {                                         \
        if constexpr (FLOAT_ONLY) ascendc_emu::floating_only<T>();                                               \
        uint64_t m[2];                                                                                          \
        ascendc_emu::given_mask<T, isSetMask>(int64_t(mask), m, #NAME, loc);                                    \
        auto rp = ascendc_emu::level0_repeats<T>(isSetMask, m, repeatTimes, #NAME, loc);                        \
        ascendc_emu::unary_l0(dst, src, rp, repeatParams, #NAME, loc, [](T v) {                                 \
            auto x = ascendc_emu::up(v);                                                                        \
            return ascendc_emu::down<T>(EXPR);                                                                  \
        });                                                                                                     \
    }                                                                                                           \
    template <class T, bool isSetMask = true>                                                                   \
    void NAME(const LocalTensor<T> &dst, const LocalTensor<T> &src, const uint64_t mask[],                       \
              const uint8_t repeatTimes, const UnaryRepeatParams &repeatParams, ASCENDC_EMU_LOC) {              \
        if constexpr (FLOAT_ONLY) ascendc_emu::floating_only<T>();                                               \
        uint64_t m[2];                                                                                          \
        ascendc_emu::given_mask<T, isSetMask>(mask, m);                                                         \
        auto rp = ascendc_emu::level0_repeats<T>(isSetMask, m, repeatTimes, #NAME, loc);                        \
        ascendc_emu::unary_l0(dst, src, rp, repeatParams, #NAME, loc, [](T v) {                                 \
            auto x = ascendc_emu::up(v);                                                                        \
            return ascendc_emu::down<T>(EXPR);                                                                  \
        });                                                                                                     \
    }
ASCENDC_EMU_UNARY_L0(Exp, std::exp(x), true)
ASCENDC_EMU_UNARY_L0(Ln, std::log(x), true)
ASCENDC_EMU_UNARY_L0(Sqrt, std::sqrt(x), true)
ASCENDC_EMU_UNARY_L0(Rsqrt, decltype(x)(1) / std::sqrt(x), true)
ASCENDC_EMU_UNARY_L0(Reciprocal, decltype(x)(1) / x, true)
ASCENDC_EMU_UNARY_L0(Abs, x < 0 ? -x : x, false)
ASCENDC_EMU_UNARY_L0(Relu, ascendc_emu::nan_max(x, decltype(x)(0)), false)
ASCENDC_EMU_UNARY_L0(Not, ~x, false)
#undef ASCENDC_EMU_UNARY_L0

#define ASCENDC_EMU_SCALAR_L0(NAME, EXPR)                                                                        \
    template <class T, bool isSetMask = true>                                                                   \
    void NAME(const LocalTensor<T> &dst, const LocalTensor<T> &src,                                              \
              const typename ascendc_emu::Identity<T>::type &scalarValue, uint64_t mask,                        \
              const uint8_t repeatTimes, const UnaryRepeatParams &repeatParams, ASCENDC_EMU_LOC) {              \
        uint64_t m[2];                                                                                          \
        ascendc_emu::given_mask<T, isSetMask>(int64_t(mask), m, #NAME, loc);                                    \
        auto rp = ascendc_emu::level0_repeats<T>(isSetMask, m, repeatTimes, #NAME, loc);                        \
        auto s = ascendc_emu::up(scalarValue);                                                                  \
        ascendc_emu::unary_l0(dst, src, rp, repeatParams, #NAME, loc, [s](T v) {                                \
            auto x = ascendc_emu::up(v);                                                                        \
            return ascendc_emu::down<T>(EXPR);                                                                  \
        });                                                                                                     \
    }                                                                                                           \
    template <class T, bool isSetMask = true>                                                                   \
    void NAME(const LocalTensor<T> &dst, const LocalTensor<T> &src,                                              \
              const typename ascendc_emu::Identity<T>::type &scalarValue, const uint64_t mask[],                \
              const uint8_t repeatTimes, const UnaryRepeatParams &repeatParams, ASCENDC_EMU_LOC) {              \
        uint64_t m[2];                                                                                          \
        ascendc_emu::given_mask<T, isSetMask>(mask, m);                                                         \
        auto rp = ascendc_emu::level0_repeats<T>(isSetMask, m, repeatTimes, #NAME, loc);                        \
        auto s = ascendc_emu::up(scalarValue);                                                                  \
        ascendc_emu::unary_l0(dst, src, rp, repeatParams, #NAME, loc, [s](T v) {                                \
            auto x = ascendc_emu::up(v);                                                                        \
            return ascendc_emu::down<T>(EXPR);                                                                  \
        });                                                                                                     \
    }
ASCENDC_EMU_SCALAR_L0(Adds, x + s)
ASCENDC_EMU_SCALAR_L0(Muls, x * s)
ASCENDC_EMU_SCALAR_L0(Maxs, ascendc_emu::nan_max(x, s))
ASCENDC_EMU_SCALAR_L0(Mins, ascendc_emu::nan_min(x, s))
#undef ASCENDC_EMU_SCALAR_L0

struct CopyRepeatParams {
    uint16_t dstStride = 1, srcStride = 1, dstRepeatSize = 8, srcRepeatSize = 8;
    CopyRepeatParams() = default;
    CopyRepeatParams(uint16_t dstBlk, uint16_t srcBlk, uint16_t dstRep, uint16_t srcRep)
        : dstStride(dstBlk), srcStride(srcBlk), dstRepeatSize(dstRep), srcRepeatSize(srcRep) {}
};

// UB -> UB, level 0: the masked elements of each repeat, with their block and repeat strides
template <class T, bool isSetMask = true>
void Copy(const LocalTensor<T> &dst, const LocalTensor<T> &src, uint64_t mask, uint8_t repeatTimes,
          const CopyRepeatParams &p, ASCENDC_EMU_LOC) {
    uint64_t m[2];
    ascendc_emu::given_mask<T, isSetMask>(int64_t(mask), m, "Copy", loc);
    auto rp = ascendc_emu::level0_repeats<T>(isSetMask, m, repeatTimes, "Copy", loc);
    if (rp.n == 0) return;
    dst.aligned("Copy", loc);
    src.aligned("Copy", loc);
    const T *s = src.use(uint32_t(ascendc_emu::reach<T>(rp, p.srcStride, p.srcRepeatSize)), false, "Copy", loc);
    T *d = dst.use(uint32_t(ascendc_emu::reach<T>(rp, p.dstStride, p.dstRepeatSize)), true, "Copy", loc);
    for (int64_t r = 0; r < rp.n; r++) {
        auto es = ascendc_emu::repeat_elems<T>(rp, r, p.srcStride, p.srcRepeatSize);
        auto ed = ascendc_emu::repeat_elems<T>(rp, r, p.dstStride, p.dstRepeatSize);
        std::vector<T> v(es.size());
        for (size_t i = 0; i < es.size(); i++) v[i] = s[es[i].second];
        for (size_t i = 0; i < ed.size(); i++) d[ed[i].second] = v[i];
    }
}

// one bit per element of each repeat, repeat r's at bits [r * elements per repeat, ...); bits the mask leaves out
// keep what they held
template <class U, class T, bool isSetMask = true>
void Compare(const LocalTensor<U> &dst, const LocalTensor<T> &src0, const LocalTensor<T> &src1, CMPMODE cmpMode,
             uint64_t mask, uint8_t repeatTimes, const BinaryRepeatParams &p, ASCENDC_EMU_LOC) {
    uint64_t m[2];
    ascendc_emu::given_mask<T, isSetMask>(int64_t(mask), m, "Compare", loc);
    auto rp = ascendc_emu::level0_repeats<T>(isSetMask, m, repeatTimes, "Compare", loc);
    if (rp.n == 0) return;
    dst.aligned("Compare", loc);
    src0.aligned("Compare", loc);
    src1.aligned("Compare", loc);
    const T *x = src0.use(uint32_t(ascendc_emu::reach<T>(rp, p.src0BlkStride, p.src0RepStride)), false, "Compare", loc);
    const T *y = src1.use(uint32_t(ascendc_emu::reach<T>(rp, p.src1BlkStride, p.src1RepStride)), false, "Compare", loc);
    uint64_t bits = uint64_t(rp.n) * ascendc_emu::per_repeat<T>();
    uint8_t *d = reinterpret_cast<uint8_t *>(
        dst.use(static_cast<uint32_t>(((bits + 7) / 8 + sizeof(U) - 1) / sizeof(U)), true, "Compare", loc));
    for (int64_t r = 0; r < rp.n; r++) {
        auto ea = ascendc_emu::repeat_elems<T>(rp, r, p.src0BlkStride, p.src0RepStride);
        auto eb = ascendc_emu::repeat_elems<T>(rp, r, p.src1BlkStride, p.src1RepStride);
        for (size_t i = 0; i < ea.size(); i++) {
            uint64_t bit = uint64_t(r) * ascendc_emu::per_repeat<T>() + ea[i].first;
            bool v = ascendc_emu::compare(ascendc_emu::up(x[ea[i].second]), ascendc_emu::up(y[eb[i].second]), cmpMode);
            d[bit / 8] = static_cast<uint8_t>(v ? d[bit / 8] | (1u << (bit % 8)) : d[bit / 8] & ~(1u << (bit % 8)));
        }
    }
}

}  // namespace AscendC
