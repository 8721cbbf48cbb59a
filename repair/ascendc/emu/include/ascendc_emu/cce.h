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

// Two of CANN's implementation functions (kernel_operator_*_impl.h, declared by kernel_operator.h on the NPU) that
// some ops-library kernels call on raw addresses: DuplicateImpl fills `count` elements at a UB address, and
// DataCopyUB2GMImpl copies `blockCount` blocks of `blockLen` 32-byte units from UB to GM (strides in 32-byte units).
namespace AscendC {
template <class T> inline void DuplicateImpl(T *dst, const T &value, const int32_t &count, ASCENDC_EMU_LOC) {
    uint64_t n = count > 0 ? uint64_t(count) : 0;
    T *d = reinterpret_cast<T *>(
        ascendc_emu::ub_at(ascendc_emu::ub_addr(dst), n * sizeof(T), true, "DuplicateImpl", loc));
    for (uint64_t i = 0; i < n; i++) d[i] = value;
}
template <class T> inline void DataCopyUB2GMImpl(T *dst, T *src, const DataCopyParams &p, ASCENDC_EMU_LOC) {
    ASCENDC_EMU_PIPE(kPipeMTE3);
    uint64_t len = p.blockLen * 32ull, sg = p.srcStride * 32ull, dg = p.dstStride * 32ull;
    if (p.blockCount == 0) return;
    uint64_t sspan = p.blockCount * (len + sg) - sg, dspan = p.blockCount * (len + dg) - dg;
    uint8_t *s = ascendc_emu::ub_at(ascendc_emu::ub_addr(src), sspan, false, "DataCopyUB2GMImpl", loc);
    ascendc_emu::gm_check(dst, dspan, true, "DataCopyUB2GMImpl", loc);
    for (uint64_t b = 0; b < p.blockCount; b++)
        ascendc_emu::gm_write<T>(reinterpret_cast<uint8_t *>(dst) + b * (len + dg), s + b * (len + sg), len,
                                 "DataCopyUB2GMImpl", loc);
}
}  // namespace AscendC

inline void set_mask_count() { AscendC::SetMaskCount(); }
inline void set_mask_norm() { AscendC::SetMaskNorm(); }
inline void set_vector_mask(uint64_t high, uint64_t low) {
    ascendc_emu::g_block.mask[0] = low;
    ascendc_emu::g_block.mask[1] = high;
}
