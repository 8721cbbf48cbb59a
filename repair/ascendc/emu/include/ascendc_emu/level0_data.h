// ascendc-cpu: the level-0 (mask, repeats, strides) forms of Duplicate, Cast and Select, under the mask register as
// level0.h's are. Cast between types of two sizes runs 256 / sizeof(the larger) elements a repeat, each operand's
// blocks of its own element count.
#pragma once

#include "ascendc_emu/level0.h"

namespace ascendc_emu {

// element e of repeat r of an operand of type T, with its block and repeat strides (32-byte units)
template <class T> inline uint64_t l0_offset(int64_t r, uint32_t e, int32_t blk, int32_t rep) {
    constexpr uint32_t B = 32 / sizeof(T);
    return (uint64_t(r) * rep * 32) / sizeof(T) + uint64_t(e / B) * blk * B + e % B;
}

// the elements of repeat r the mask enables (indices within the repeat)
inline std::vector<uint32_t> l0_enabled(const Repeats &rp, int64_t r) {
    uint64_t m[2];
    rp.of(r, m);
    std::vector<uint32_t> out;
    for (uint32_t e = 0; e < rp.per; e++)
        if ((m[e / 64] >> (e % 64)) & 1) out.push_back(e);
    return out;
}

template <class T> uint64_t l0_reach(const Repeats &rp, int32_t blk, int32_t rep) {
    uint64_t last = 0;
    for (int64_t r = 0; r < rp.n; r++)
        for (uint32_t e : l0_enabled(rp, r)) last = std::max(last, l0_offset<T>(r, e, blk, rep) + 1);
    return last;
}

}  // namespace ascendc_emu

namespace AscendC {

// Duplicate(dst, scalar, mask, repeatTime, dstBlockStride, dstRepeatStride)
#define ASCENDC_EMU_DUP_L0(MASK_T, GIVEN)                                                                           \
    template <class T, bool isSetMask = true>                                                                       \
    void Duplicate(const LocalTensor<T> &dst, const typename ascendc_emu::Identity<T>::type &scalarValue,           \
                   MASK_T mask, const uint8_t repeatTime, const uint16_t dstBlockStride,                            \
                   const uint8_t dstRepeatStride, ASCENDC_EMU_LOC) {                                                \
        uint64_t m[2];                                                                                              \
        GIVEN;                                                                                                      \
        auto rp = ascendc_emu::level0_repeats<T>(isSetMask, m, repeatTime, "Duplicate", loc);                       \
        if (rp.n == 0) return;                                                                                      \
        dst.aligned("Duplicate", loc);                                                                              \
        T *d = dst.use(uint32_t(ascendc_emu::l0_reach<T>(rp, dstBlockStride, dstRepeatStride)), true, "Duplicate",  \
                       loc);                                                                                        \
        T v = scalarValue;                                                                                          \
        for (int64_t r = 0; r < rp.n; r++)                                                                          \
            for (uint32_t e : ascendc_emu::l0_enabled(rp, r))                                                       \
                d[ascendc_emu::l0_offset<T>(r, e, dstBlockStride, dstRepeatStride)] = v;                            \
    }
ASCENDC_EMU_DUP_L0(uint64_t, (ascendc_emu::given_mask<T, isSetMask>(int64_t(mask), m, "Duplicate", loc)))
ASCENDC_EMU_DUP_L0(const uint64_t *, (ascendc_emu::given_mask<T, isSetMask>(mask, m)))
#undef ASCENDC_EMU_DUP_L0

// Cast(dst, src, roundMode, mask, repeatTime, UnaryRepeatParams)
#define ASCENDC_EMU_CAST_L0(MASK_T, GIVEN)                                                                          \
    template <class D, class S, bool isSetMask = true>                                                              \
    void Cast(const LocalTensor<D> &dst, const LocalTensor<S> &src, const RoundMode &roundMode, MASK_T mask,        \
              const uint8_t repeatTime, const UnaryRepeatParams &p, ASCENDC_EMU_LOC) {                              \
        using Big = std::conditional_t<(sizeof(D) > sizeof(S)), D, S>;                                              \
        RoundMode md = roundMode;                                                                                   \
        ascendc_emu::check_cast<D, S>(md, loc);                                                                     \
        uint64_t m[2];                                                                                              \
        GIVEN;                                                                                                      \
        auto rp = ascendc_emu::level0_repeats<Big>(isSetMask, m, repeatTime, "Cast", loc);                          \
        if (rp.n == 0) return;                                                                                      \
        dst.aligned("Cast", loc);                                                                                   \
        src.aligned("Cast", loc);                                                                                   \
        const S *s = src.use(uint32_t(ascendc_emu::l0_reach<S>(rp, p.srcBlkStride, p.srcRepStride)), false, "Cast", \
                             loc);                                                                                  \
        D *d = dst.use(uint32_t(ascendc_emu::l0_reach<D>(rp, p.dstBlkStride, p.dstRepStride)), true, "Cast", loc);  \
        for (int64_t r = 0; r < rp.n; r++) {                                                                        \
            auto en = ascendc_emu::l0_enabled(rp, r);                                                               \
            std::vector<D> out(en.size());                                                                          \
            for (size_t i = 0; i < en.size(); i++)                                                                  \
                out[i] = ascendc_emu::cast_one<D, S>(                                                               \
                    s[ascendc_emu::l0_offset<S>(r, en[i], p.srcBlkStride, p.srcRepStride)], md);                    \
            for (size_t i = 0; i < en.size(); i++)                                                                  \
                d[ascendc_emu::l0_offset<D>(r, en[i], p.dstBlkStride, p.dstRepStride)] = out[i];                    \
        }                                                                                                           \
    }
ASCENDC_EMU_CAST_L0(const uint64_t, (ascendc_emu::given_mask<Big, isSetMask>(int64_t(mask), m, "Cast", loc)))
ASCENDC_EMU_CAST_L0(const uint64_t *, (ascendc_emu::given_mask<Big, isSetMask>(mask, m)))
#undef ASCENDC_EMU_CAST_L0

}  // namespace AscendC

namespace ascendc_emu {

// Select under a mask: bit b of the selection mask for element e of repeat r (VSEL_CMPMASK_SPR: one repeat's bits)
template <class T, class U, class F>
void select_l0(const AscendC::LocalTensor<T> &dst, const AscendC::LocalTensor<U> &selMask, AscendC::SELMODE mode,
               const Repeats &rp, const AscendC::BinaryRepeatParams &p, bool scalar, const Loc &loc, F pick) {
    if (rp.n == 0) return;
    const uint8_t *m = select_bits<T>(selMask, mode, uint32_t(rp.n * rp.per), scalar, loc);
    dst.aligned("Select", loc);
    T *d = dst.use(uint32_t(l0_reach<T>(rp, p.dstBlkStride, p.dstRepStride)), true, "Select", loc);
    for (int64_t r = 0; r < rp.n; r++) {
        auto en = l0_enabled(rp, r);
        std::vector<T> out(en.size());
        for (size_t i = 0; i < en.size(); i++) {
            uint32_t bit = uint32_t(r * rp.per + en[i]);
            out[i] = pick(r, en[i], select_bit(m, bit, mode, rp.per));
        }
        for (size_t i = 0; i < en.size(); i++) d[l0_offset<T>(r, en[i], p.dstBlkStride, p.dstRepStride)] = out[i];
    }
}

}  // namespace ascendc_emu

namespace AscendC {

#define ASCENDC_EMU_SELECT_L0(MASK_T, GIVEN)                                                                        \
    template <class T, class U, bool isSetMask = true>                                                              \
    void Select(const LocalTensor<T> &dst, const LocalTensor<U> &selMask, const LocalTensor<T> &src0,               \
                const LocalTensor<T> &src1, SELMODE selMode, MASK_T mask, uint8_t repeatTime,                       \
                const BinaryRepeatParams &p, ASCENDC_EMU_LOC) {                                                     \
        uint64_t m[2];                                                                                              \
        GIVEN;                                                                                                      \
        auto rp = ascendc_emu::level0_repeats<T>(isSetMask, m, repeatTime, "Select", loc);                          \
        if (rp.n == 0) return;                                                                                      \
        src0.aligned("Select", loc);                                                                                \
        src1.aligned("Select", loc);                                                                                \
        const T *a = src0.use(uint32_t(ascendc_emu::l0_reach<T>(rp, p.src0BlkStride, p.src0RepStride)), false,     \
                              "Select", loc);                                                                       \
        const T *b = src1.use(uint32_t(ascendc_emu::l0_reach<T>(rp, p.src1BlkStride, p.src1RepStride)), false,     \
                              "Select", loc);                                                                       \
        ascendc_emu::select_l0(dst, selMask, selMode, rp, p, false, loc, [&](int64_t r, uint32_t e, bool one) {     \
            return one ? a[ascendc_emu::l0_offset<T>(r, e, p.src0BlkStride, p.src0RepStride)]                       \
                       : b[ascendc_emu::l0_offset<T>(r, e, p.src1BlkStride, p.src1RepStride)];                      \
        });                                                                                                         \
    }                                                                                                               \
    template <class T, class U, bool isSetMask = true>                                                              \
    void Select(const LocalTensor<T> &dst, const LocalTensor<U> &selMask, const LocalTensor<T> &src0,               \
                typename ascendc_emu::Identity<T>::type src1, SELMODE selMode, MASK_T mask, uint8_t repeatTime,     \
                const BinaryRepeatParams &p, ASCENDC_EMU_LOC) {                                                     \
        uint64_t m[2];                                                                                              \
        GIVEN;                                                                                                      \
        auto rp = ascendc_emu::level0_repeats<T>(isSetMask, m, repeatTime, "Select", loc);                          \
        if (rp.n == 0) return;                                                                                      \
        src0.aligned("Select", loc);                                                                                \
        const T *a = src0.use(uint32_t(ascendc_emu::l0_reach<T>(rp, p.src0BlkStride, p.src0RepStride)), false,     \
                              "Select", loc);                                                                       \
        T s = src1;                                                                                                 \
        ascendc_emu::select_l0(dst, selMask, selMode, rp, p, true, loc, [&](int64_t r, uint32_t e, bool one) {      \
            return one ? a[ascendc_emu::l0_offset<T>(r, e, p.src0BlkStride, p.src0RepStride)] : s;                  \
        });                                                                                                         \
    }
ASCENDC_EMU_SELECT_L0(uint64_t, (ascendc_emu::given_mask<T, isSetMask>(int64_t(mask), m, "Select", loc)))
ASCENDC_EMU_SELECT_L0(const uint64_t *, (ascendc_emu::given_mask<T, isSetMask>(mask, m)))
#undef ASCENDC_EMU_SELECT_L0

}  // namespace AscendC
