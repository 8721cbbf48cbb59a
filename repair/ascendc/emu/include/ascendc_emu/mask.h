// ascendc-cpu: the vector mask register and the repeats a level-0 instruction runs under it. In normal mode the
// register holds 128 bits (two uint64_t, the low one first), bit e enabling element e of every 256-byte repeat
// (a 32-bit type uses the low 64); in counter mode (SetMaskCount) its low word is a count of elements, and the
// instruction runs as many repeats as that count takes, the last one partial, whatever repeat count it is given.
// A level-0 call with isSetMask = true writes its own mask into the register (in normal mode); with
// isSetMask = false it takes MASK_PLACEHOLDER and runs under the register. The count forms (Add(dst, a, b, n), ...)
// run in counter mode and leave the register in normal mode, all ones, as the NPU's library does.
#pragma once

#include "ascendc_emu/vector.h"

namespace ascendc_emu {

template <class T> constexpr uint32_t per_repeat() { return 256 / sizeof(T); }
template <class T> constexpr uint32_t per_block() { return 32 / sizeof(T); }

// The elements of repeat r a level-0 instruction reaches: (element index in the repeat, offset in the operand),
// under the mask.
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

// the first k bits set
inline void first_bits(uint64_t k, uint64_t out[2]) {
    out[0] = k >= 64 ? ~0ull : ((1ull << k) - 1);
    out[1] = k >= 128 ? ~0ull : (k > 64 ? ((1ull << (k - 64)) - 1) : 0);
}

template <class T> inline void count_mask(int32_t mask, uint64_t out[2], const char *api, const Loc &loc) {
    if (mask < 1 || uint32_t(mask) > per_repeat<T>())
        fail(kError, loc, "%s: mask %d outside [1, %u] for %s", api, mask, per_repeat<T>(), type_name<T>());
    first_bits(uint64_t(mask), out);
}

// The repeats of one level-0 instruction and each one's mask.
struct Repeats {
    int64_t n = 0;
    uint64_t mask[2] = {0, 0};  // normal mode: every repeat's
    bool counter = false;
    uint64_t count = 0;         // counter mode: the elements, per_repeat at a time
    uint32_t per = 0;
    void of(int64_t r, uint64_t out[2]) const {
        if (!counter) {
            out[0] = mask[0];
            out[1] = mask[1];
            return;
        }
        uint64_t left = count - uint64_t(r) * per;
        first_bits(left < per ? left : per, out);
    }
};

// `m` the mask the call gives (used only when isSetMask), `repeat` its repeat count (ignored in counter mode)
template <class T>
Repeats level0_repeats(bool isSetMask, const uint64_t m[2], int32_t repeat, const char *api, const Loc &loc) {
    Block &b = g_block;
    Repeats rp;
    rp.per = per_repeat<T>();
    if (isSetMask) {
        if (b.mask_counter)
            fail(kError, loc, "%s sets its own mask (isSetMask = true) in counter mode (after SetMaskCount): the NPU "
                 "would read that bit mask as an element count; pass isSetMask = false with MASK_PLACEHOLDER and "
                 "SetVectorMask<T, MaskMode::COUNTER>, or SetMaskNorm first", api);
        b.mask[0] = m[0];
        b.mask[1] = m[1];
    }
    if (b.mask_counter) {
        rp.counter = true;
        rp.count = b.mask[0];
        rp.n = int64_t((rp.count + rp.per - 1) / rp.per);
        return rp;
    }
    if (repeat < 0 || repeat > 255) fail(kError, loc, "%s: repeatTime %d outside [0, 255]", api, repeat);
    rp.n = repeat;
    rp.mask[0] = b.mask[0];
    rp.mask[1] = sizeof(T) == 2 ? b.mask[1] : 0;
    return rp;
}

template <class T>
std::vector<std::pair<uint32_t, uint64_t>> repeat_elems(const Repeats &rp, int64_t r, int32_t blk, int32_t rep) {
    uint64_t m[2];
    rp.of(r, m);
    return repeat_elems<T>(m, int32_t(r), blk, rep);
}

// one past the last element of an operand the repeats reach
template <class T> uint64_t reach(const Repeats &rp, int32_t blk, int32_t rep) {
    uint64_t last = 0;
    for (int64_t r = 0; r < rp.n; r++)
        for (auto &eo : repeat_elems<T>(rp, r, blk, rep)) last = std::max(last, eo.second + 1);
    return last;
}

template <class T> void l0_mask(const uint64_t mask[], uint64_t out[2]) {
    out[0] = mask[0];
    out[1] = sizeof(T) == 2 ? mask[1] : 0;
}

// the mask of a level-0 call's int form: none with isSetMask = false (MASK_PLACEHOLDER)
template <class T, bool isSetMask> void given_mask(int64_t mask, uint64_t out[2], const char *api, const Loc &loc) {
    out[0] = out[1] = 0;
    if constexpr (isSetMask) count_mask<T>(static_cast<int32_t>(mask), out, api, loc);
}
template <class T, bool isSetMask> void given_mask(const uint64_t mask[], uint64_t out[2]) {
    out[0] = out[1] = 0;
    if constexpr (isSetMask) l0_mask<T>(mask, out);
}

}  // namespace ascendc_emu

namespace AscendC {

enum class MaskMode : uint8_t { NORMAL = 0, COUNTER = 1 };

constexpr int32_t MASK_PLACEHOLDER = 0;
constexpr uint64_t MASK_PLACEHOLDER_LIST[2] = {0, 0};

inline void SetMaskCount() { ascendc_emu::g_block.mask_counter = true; }
inline void SetMaskNorm() { ascendc_emu::g_block.mask_counter = false; }

// the register as two words; in counter mode the low one is the element count
template <class T, MaskMode mode = MaskMode::NORMAL> inline void SetVectorMask(const uint64_t maskHigh, const uint64_t maskLow) {
    ascendc_emu::g_block.mask[0] = maskLow;
    ascendc_emu::g_block.mask[1] = maskHigh;
}

// normal: the first len elements of each repeat; counter: len elements in all
template <class T, MaskMode mode = MaskMode::NORMAL> inline void SetVectorMask(int32_t len, ASCENDC_EMU_LOC) {
    if constexpr (mode == MaskMode::COUNTER) {
        if (len < 0) ascendc_emu::fail(ascendc_emu::kError, loc, "SetVectorMask: a negative element count (%d)", len);
        SetVectorMask<T, mode>(0, uint64_t(len));
    } else {
        if (len < 0 || uint32_t(len) > ascendc_emu::per_repeat<T>())
            ascendc_emu::fail(ascendc_emu::kError, loc, "SetVectorMask: mask length %d outside [0, %u] for %s", len,
                              ascendc_emu::per_repeat<T>(), ascendc_emu::type_name<T>());
        uint64_t m[2];
        ascendc_emu::first_bits(uint64_t(len), m);
        SetVectorMask<T, mode>(m[1], m[0]);
    }
}

inline void ResetMask() { ascendc_emu::g_block.mask[0] = ascendc_emu::g_block.mask[1] = ~0ull; }

// the utilities kernels call directly
struct AscendCUtils {
    template <class T> static void SetMask(int32_t len, ASCENDC_EMU_LOC) {
        if (len < 0 || uint32_t(len) > ascendc_emu::per_repeat<T>())
            ascendc_emu::fail(ascendc_emu::kError, loc, "AscendCUtils::SetMask: mask length %d outside [0, %u] for %s",
                              len, ascendc_emu::per_repeat<T>(), ascendc_emu::type_name<T>());
        uint64_t m[2];
        ascendc_emu::first_bits(uint64_t(len), m);
        SetVectorMask<T>(m[1], m[0]);
    }
    template <class T> static void SetMask(const uint64_t maskHigh, const uint64_t maskLow) {
        SetVectorMask<T>(maskHigh, maskLow);
    }
    template <class T> static void ResetMask() { AscendC::ResetMask(); }
    static int64_t GetC0Size() { return 32; }
    static int64_t GetC0Count(const int32_t dtypeSize) { return dtypeSize > 0 ? 32 / dtypeSize : 0; }
};

}  // namespace AscendC
