// ascendc-cpu: instructions that move elements around: Brcb, Gather, GatherMask, CreateVecIndex/ArithProgression,
// TransDataTo5HD, Transpose; and the raw UB addresses some of them take (a LocalTensor's GetPhyAddr() is its UB offset
// here, as it is a UB address on the NPU), checked against the unified buffer.
#pragma once

#include "ascendc_emu/level0.h"

namespace ascendc_emu {

// A raw UB address (GetPhyAddr(), or a __ubuf__ pointer made from one) as memory here: `bytes` from it must lie in
// the unified buffer.
inline uint8_t *ub_at(uint64_t addr, uint64_t bytes, bool write, const char *api, const Loc &loc) {
    if (addr % 32 != 0) fail(kError, loc, "%s: UB address %llu is not 32-byte aligned", api, (unsigned long long)addr);
    if (addr + bytes > g_block.ub.size())
        fail(kError, loc, "%s: UB bytes [%llu, %llu) past the end of the unified buffer (%llu bytes)", api,
             (unsigned long long)addr, (unsigned long long)(addr + bytes), (unsigned long long)g_block.ub.size());
    ub_access_raw(addr, bytes, write, api, loc);  // the pipe model sees it as an operand's access
    return g_block.ub.data() + addr;
}
template <class P> inline uint64_t ub_addr(P *p) { return static_cast<uint64_t>(reinterpret_cast<uintptr_t>(p)); }

}  // namespace ascendc_emu

namespace AscendC {

// -- Brcb: each of 8 elements a repeat to a whole 32-byte block ---------------------------------------------------

struct BrcbRepeatParams {
    uint16_t dstBlkStride = 1;
    uint16_t dstRepStride = 8;
    BrcbRepeatParams() = default;
    BrcbRepeatParams(uint16_t blk, uint16_t rep) : dstBlkStride(blk), dstRepStride(rep) {}
};

template <class T>
void Brcb(const LocalTensor<T> &dst, const LocalTensor<T> &src, const uint8_t repeatTime,
          const BrcbRepeatParams &p, ASCENDC_EMU_LOC) {
    static_assert(sizeof(T) == 2 || sizeof(T) == 4, "Brcb takes 16- or 32-bit types");
    if (repeatTime == 0) return;
    constexpr uint32_t B = 32 / sizeof(T);
    dst.aligned("Brcb", loc);
    src.aligned("Brcb", loc);
    const T *s = src.use(uint32_t(repeatTime) * 8, false, "Brcb", loc);
    uint64_t reach = (uint64_t(repeatTime - 1) * p.dstRepStride + 7ull * p.dstBlkStride + 1) * B;
    T *d = dst.use(static_cast<uint32_t>(reach), true, "Brcb", loc);
    std::vector<T> in(s, s + uint32_t(repeatTime) * 8);  // read whole before any write (dst may overlap src)
    for (uint32_t r = 0; r < repeatTime; r++)
        for (uint32_t k = 0; k < 8; k++) {
            T *blk = d + (uint64_t(r) * p.dstRepStride + uint64_t(k) * p.dstBlkStride) * B;
            for (uint32_t e = 0; e < B; e++) blk[e] = in[r * 8 + k];
        }
}

// -- Gather: dst[i] = src[(offset[i] + base) / sizeof(T)], offsets in bytes ----------------------------------------

template <class T>
void Gather(const LocalTensor<T> &dst, const LocalTensor<T> &src, const LocalTensor<uint32_t> &srcOffset,
            const uint32_t srcBaseAddr, const uint32_t count, ASCENDC_EMU_LOC) {
    uint32_t n = ascendc_emu::count_of(count, "Gather", loc);
    dst.aligned("Gather", loc);
    src.aligned("Gather", loc);
    srcOffset.aligned("Gather", loc);
    const uint32_t *off = srcOffset.use(n, false, "Gather", loc);
    const T *s = src.use(0, false, "Gather", loc);
    T *d = dst.use(n, true, "Gather", loc);
    std::vector<T> out(n);
    for (uint32_t i = 0; i < n; i++) {
        uint64_t byte = uint64_t(off[i]) + srcBaseAddr;
        if (byte % sizeof(T) != 0)
            ascendc_emu::fail(ascendc_emu::kError, loc, "Gather: offset %llu bytes is not a whole %s",
                              (unsigned long long)byte, ascendc_emu::type_name<T>());
        if (byte / sizeof(T) >= src.GetSize())
            ascendc_emu::fail(ascendc_emu::kError, loc, "Gather: offset %llu bytes past the end of a LocalTensor<%s> "
                              "of %u elements", (unsigned long long)byte, ascendc_emu::type_name<T>(), src.GetSize());
        out[i] = s[byte / sizeof(T)];
    }
    std::copy(out.begin(), out.end(), d);
}

// -- GatherMask: the elements a bit mask selects, packed into dst; rsvdCnt how many ---------------------------------

struct GatherMaskParams {
    uint8_t src0BlockStride = 1;
    uint16_t repeatTimes = 0;
    uint16_t src0RepeatStride = 8;
    uint8_t src1RepeatStride = 8;
    GatherMaskParams() = default;
    GatherMaskParams(uint8_t blk, uint16_t repeat, uint16_t rep0, uint8_t rep1)
        : src0BlockStride(blk), repeatTimes(repeat), src0RepeatStride(rep0), src1RepeatStride(rep1) {}
};

}  // namespace AscendC

namespace ascendc_emu {

// built-in patterns 1-7: even, odd, the 1st/2nd/3rd/4th of every four, all
inline bool builtin_pattern(uint8_t pattern, uint32_t e) {
    switch (pattern) {
        case 1: return e % 2 == 0;
        case 2: return e % 2 == 1;
        case 3: case 4: case 5: case 6: return e % 4 == uint32_t(pattern - 3);
        default: return true;
    }
}

// Normal mode (reduceMode false): each repeat one 256-byte repeat of src0; counter mode (true, as the Atlas A2 has
// it): each repeat `mask` elements. `bit(r, e)`: whether element e of repeat r is taken.
template <class T, class F>
uint64_t gather_mask(const AscendC::LocalTensor<T> &dst, const AscendC::LocalTensor<T> &src0, bool reduceMode,
                     uint32_t mask, const AscendC::GatherMaskParams &p, const Loc &loc, F bit) {
    constexpr uint32_t B = 32 / sizeof(T);
    uint32_t per = reduceMode ? mask : 256 / sizeof(T);
    if (reduceMode && mask == 0) fail(kError, loc, "GatherMask in counter mode with a mask of 0 elements");
    dst.aligned("GatherMask", loc);
    src0.aligned("GatherMask", loc);
    uint64_t reach = 0;
    auto at = [&](uint32_t r, uint32_t e) {
        return uint64_t(r) * p.src0RepeatStride * B + uint64_t(e / B) * p.src0BlockStride * B + e % B;
    };
    for (uint32_t r = 0; r < p.repeatTimes; r++) reach = std::max(reach, at(r, per - 1) + 1);
    const T *s = src0.use(static_cast<uint32_t>(reach), false, "GatherMask", loc);
    std::vector<T> out;
    for (uint32_t r = 0; r < p.repeatTimes; r++)
        for (uint32_t e = 0; e < per; e++)
            if (bit(r, e)) out.push_back(s[at(r, e)]);
    T *d = dst.use(static_cast<uint32_t>(out.size()), true, "GatherMask", loc);
    std::copy(out.begin(), out.end(), d);
    return out.size();
}

}  // namespace ascendc_emu

namespace AscendC {

enum class GatherMaskMode : uint8_t { VERSION_V1 = 0, VERSION_V2 = 1 };
constexpr GatherMaskMode defaultGatherMaskMode = GatherMaskMode::VERSION_V1;

template <class T, GatherMaskMode mode = defaultGatherMaskMode>
void GatherMask(const LocalTensor<T> &dst, const LocalTensor<T> &src0, const uint8_t src1Pattern,
                const bool reduceMode, const uint32_t mask, const GatherMaskParams &p, uint64_t &rsvdCnt,
                ASCENDC_EMU_LOC) {
    if (src1Pattern < 1 || src1Pattern > 7)
        ascendc_emu::fail(ascendc_emu::kError, loc, "GatherMask: built-in pattern %u outside [1, 7]", src1Pattern);
    rsvdCnt = ascendc_emu::gather_mask(dst, src0, reduceMode, mask, p, loc, [&](uint32_t, uint32_t e) {
        return ascendc_emu::builtin_pattern(src1Pattern, e);
    });
}

template <class T, class U, GatherMaskMode mode = defaultGatherMaskMode>
void GatherMask(const LocalTensor<T> &dst, const LocalTensor<T> &src0, const LocalTensor<U> &src1Pattern,
                const bool reduceMode, const uint32_t mask, const GatherMaskParams &p, uint64_t &rsvdCnt,
                ASCENDC_EMU_LOC) {
    static_assert(std::is_same_v<U, uint16_t> || std::is_same_v<U, uint32_t>,
                  "GatherMask's pattern tensor holds uint16_t or uint32_t");
    src1Pattern.aligned("GatherMask", loc);
    uint32_t per = reduceMode ? mask : 256 / sizeof(T);
    uint64_t words = 0;
    for (uint32_t r = 0; r < p.repeatTimes; r++)
        words = std::max<uint64_t>(words, (uint64_t(r) * p.src1RepeatStride * 32 * 8 + per + 8 * sizeof(U) - 1) /
                                              (8 * sizeof(U)));
    const U *m = src1Pattern.use(static_cast<uint32_t>(words), false, "GatherMask", loc);
    const uint8_t *bytes = reinterpret_cast<const uint8_t *>(m);
    rsvdCnt = ascendc_emu::gather_mask(dst, src0, reduceMode, mask, p, loc, [&](uint32_t r, uint32_t e) {
        uint64_t b = uint64_t(r) * p.src1RepeatStride * 32 * 8 + e;
        return ((bytes[b / 8] >> (b % 8)) & 1) != 0;
    });
}

// -- CreateVecIndex / ArithProgression ------------------------------------------------------------------------------

template <class T>
void CreateVecIndex(const LocalTensor<T> &dst, const typename ascendc_emu::Identity<T>::type firstValue,
                    uint32_t calCount, ASCENDC_EMU_LOC) {
    uint32_t n = ascendc_emu::count_of(calCount, "CreateVecIndex", loc);
    dst.aligned("CreateVecIndex", loc);
    T *d = dst.use(n, true, "CreateVecIndex", loc);
    auto f = ascendc_emu::up(T(firstValue));
    for (uint32_t i = 0; i < n; i++) d[i] = ascendc_emu::down<T>(f + decltype(f)(i));
}

template <class T>
void ArithProgression(const LocalTensor<T> &dst, const typename ascendc_emu::Identity<T>::type firstValue,
                      const typename ascendc_emu::Identity<T>::type diffValue, const int32_t count, ASCENDC_EMU_LOC) {
    uint32_t n = ascendc_emu::count_of(count, "ArithProgression", loc);
    dst.aligned("ArithProgression", loc);
    T *d = dst.use(n, true, "ArithProgression", loc);
    auto f = ascendc_emu::up(T(firstValue)), k = ascendc_emu::up(T(diffValue));
    for (uint32_t i = 0; i < n; i++) d[i] = ascendc_emu::down<T>(f + k * decltype(f)(i));
}

// -- TransDataTo5HD: 16 source rows of one 32-byte block to 16 destination rows, transposed, per repeat -----------
// 16-bit types: destination block j holds element j of each of the 16 source blocks. 32-bit types: the 16 x 8
// elements transposed into 8 rows of 16, row c in destination blocks 2c (sources 0-7) and 2c + 1 (sources 8-15).
// After each repeat the source addresses move srcRepStride blocks on, the destination ones dstRepStride.

struct TransDataTo5HDParams {
    bool dstHighHalf = false;
    bool srcHighHalf = false;
    uint8_t repeatTimes = 1;
    uint16_t dstRepStride = 0;
    uint16_t srcRepStride = 0;
    TransDataTo5HDParams() = default;
    TransDataTo5HDParams(bool dstHigh, bool srcHigh, uint8_t repeat, uint16_t dstRep, uint16_t srcRep)
        : dstHighHalf(dstHigh), srcHighHalf(srcHigh), repeatTimes(repeat), dstRepStride(dstRep), srcRepStride(srcRep) {}
};

}  // namespace AscendC

namespace ascendc_emu {

template <class T>
void trans_5hd(const uint64_t dst[16], const uint64_t src[16], const AscendC::TransDataTo5HDParams &p, const Loc &loc) {
    static_assert(sizeof(T) == 2 || sizeof(T) == 4, "ascendc-cpu does not emulate TransDataTo5HD of 8-bit types");
    constexpr uint32_t B = 32 / sizeof(T);
    for (uint32_t r = 0; r < p.repeatTimes; r++) {
        T in[16][B];
        for (uint32_t i = 0; i < 16; i++)
            std::memcpy(in[i], ub_at(src[i] + uint64_t(r) * p.srcRepStride * 32, 32, false, "TransDataTo5HD", loc), 32);
        T out[16][B];
        for (uint32_t j = 0; j < 16; j++)
            for (uint32_t e = 0; e < B; e++) {
                if constexpr (sizeof(T) == 2) out[j][e] = in[e][j];
                else out[j][e] = in[(j % 2) * 8 + e][j / 2];
            }
        for (uint32_t j = 0; j < 16; j++)
            std::memcpy(ub_at(dst[j] + uint64_t(r) * p.dstRepStride * 32, 32, true, "TransDataTo5HD", loc), out[j], 32);
    }
}

}  // namespace ascendc_emu

namespace AscendC {

template <class T>
void TransDataTo5HD(const LocalTensor<T> (&dstList)[16], const LocalTensor<T> (&srcList)[16],
                    const TransDataTo5HDParams &p, ASCENDC_EMU_LOC) {
    uint64_t d[16], s[16];
    for (int i = 0; i < 16; i++) {
        srcList[i].use(0, false, "TransDataTo5HD", loc);
        dstList[i].use(0, true, "TransDataTo5HD", loc);
        d[i] = dstList[i].GetPhyAddr();
        s[i] = srcList[i].GetPhyAddr();
    }
    ascendc_emu::trans_5hd<T>(d, s, p, loc);
}

template <class T>
void TransDataTo5HD(uint64_t (&dstList)[16], uint64_t (&srcList)[16], const TransDataTo5HDParams &p, ASCENDC_EMU_LOC) {
    ascendc_emu::trans_5hd<T>(dstList, srcList, p, loc);
}

// the address-list form kernels reach through CANN's implementation name: arrays of __ubuf__ pointers
template <class T>
void TransDataTo5HDImpl(T *(&dstList)[16], T *(&srcList)[16], const TransDataTo5HDParams &p, ASCENDC_EMU_LOC) {
    uint64_t d[16], s[16];
    for (int i = 0; i < 16; i++) {
        d[i] = ascendc_emu::ub_addr(dstList[i]);
        s[i] = ascendc_emu::ub_addr(srcList[i]);
    }
    ascendc_emu::trans_5hd<T>(d, s, p, loc);
}
template <class T>
void TransDataTo5HD(T *(&dstList)[16], T *(&srcList)[16], const TransDataTo5HDParams &p, ASCENDC_EMU_LOC) {
    TransDataTo5HDImpl(dstList, srcList, p, loc);
}

// -- Transpose: a 16 x 16 matrix of a 16-bit type ------------------------------------------------------------------

template <class T> void Transpose(const LocalTensor<T> &dst, const LocalTensor<T> &src, ASCENDC_EMU_LOC) {
    static_assert(sizeof(T) == 2, "ascendc-cpu does not emulate Transpose of this type (the 16 x 16 form takes "
                                  "16-bit types)");
    dst.aligned("Transpose", loc);
    src.aligned("Transpose", loc);
    const T *s = src.use(256, false, "Transpose", loc);
    T *d = dst.use(256, true, "Transpose", loc);
    T in[256];
    std::copy(s, s + 256, in);
    for (uint32_t i = 0; i < 16; i++)
        for (uint32_t j = 0; j < 16; j++) d[j * 16 + i] = in[i * 16 + j];
}

}  // namespace AscendC
