// ascendc-cpu: the few CCE instructions kernels call below the AscendC API on __ubuf__ addresses (a LocalTensor's
// GetPhyAddr(), its UB offset here): vcadd (a sum of each repeat's masked elements, into a destination or, with none,
// accumulated into the accumulator GetAccVal reads), and the lower-case mask-register calls. The rest of the CCE
// instruction set is not emulated (a call is `unsupported`).
#pragma once

#include "ascendc_emu/gather.h"

namespace ascendc_emu {

template <class T>
void vcadd(T *dst, const T *src, uint8_t repeat, uint16_t dstRepStride, uint16_t srcBlkStride, uint16_t srcRepStride,
           const Loc &loc) {
    floating_only<T>();
    uint64_t none[2] = {0, 0};
    auto rp = level0_repeats<T>(false, none, repeat, "vcadd", loc);
    uint64_t last = reach<T>(rp, srcBlkStride, srcRepStride);
    const T *s = reinterpret_cast<const T *>(ub_at(ub_addr(src), last * sizeof(T), false, "vcadd", loc));
    T *d = dst ? reinterpret_cast<T *>(ub_at(ub_addr(dst), (uint64_t(rp.n ? rp.n - 1 : 0) * dstRepStride + 1) *
                                                                sizeof(T), true, "vcadd", loc))
               : nullptr;
    calc_t<T> acc = 0;
    for (int64_t r = 0; r < rp.n; r++) {
        std::vector<calc_t<T>> v(per_repeat<T>(), calc_t<T>(0));
        for (auto &eo : repeat_elems<T>(rp, r, srcBlkStride, srcRepStride)) v[eo.first] = up(s[eo.second]);
        calc_t<T> sum = tree_sum<T>(v);
        if (d) d[uint64_t(r) * dstRepStride] = down<T>(sum);
        acc = add_rounded<T>(acc, sum);
    }
    if (!d) {
        T out = down<T>(acc);
        g_block.acc = 0;
        std::memcpy(&g_block.acc, &out, sizeof(T));
    }
}

}  // namespace ascendc_emu

// global, as the compiler's intrinsics are
template <class T>
inline void vcadd(T *dst, T *src, uint8_t repeat, uint16_t dstRepStride, uint16_t srcBlkStride, uint16_t srcRepStride,
                  bool, ASCENDC_EMU_LOC) {
    ascendc_emu::vcadd<T>(dst, src, repeat, dstRepStride, srcBlkStride, srcRepStride, loc);
}
template <class T>
inline void vcadd(std::nullptr_t, T *src, uint8_t repeat, uint16_t dstRepStride, uint16_t srcBlkStride,
                  uint16_t srcRepStride, bool, ASCENDC_EMU_LOC) {
    ascendc_emu::vcadd<T>(nullptr, src, repeat, dstRepStride, srcBlkStride, srcRepStride, loc);
}
inline uint64_t get_acc_val() { return ascendc_emu::g_block.acc; }
namespace AscendC {
inline uint64_t GetAccVal() { return ascendc_emu::g_block.acc; }
}  // namespace AscendC
using AscendC::GetAccVal;

inline void set_mask_count() { AscendC::SetMaskCount(); }
inline void set_mask_norm() { AscendC::SetMaskNorm(); }
inline void set_vector_mask(uint64_t high, uint64_t low) {
    ascendc_emu::g_block.mask[0] = low;
    ascendc_emu::g_block.mask[1] = high;
}
