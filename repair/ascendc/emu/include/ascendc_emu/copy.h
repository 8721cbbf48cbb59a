// ascendc-cpu: DataCopy (whole 32-byte blocks; a partial last block is not copied, as on the NPU) and DataCopyPad (any length, rows padded to 32 bytes).
#pragma once

#include "ascendc_emu/tensor.h"

namespace AscendC {

struct DataCopyParams {
    DataCopyParams() = default;
    DataCopyParams(uint16_t count, uint16_t len, uint16_t srcStrideIn, uint16_t dstStrideIn)
        : blockCount(count), blockLen(len), srcStride(srcStrideIn), dstStride(dstStrideIn) {}
    uint16_t blockCount = 1;
    uint16_t blockLen = 0;   // DataCopy: 32-byte blocks; DataCopyPad: bytes
    uint16_t srcStride = 0;  // gap after each block (GM side of DataCopyPad: bytes; otherwise 32-byte blocks)
    uint16_t dstStride = 0;
};

struct DataCopyExtParams {
    DataCopyExtParams() = default;
    DataCopyExtParams(uint16_t count, uint32_t len, uint32_t srcStrideIn, uint32_t dstStrideIn, uint32_t rsvIn)
        : blockCount(count), blockLen(len), srcStride(srcStrideIn), dstStride(dstStrideIn), rsv(rsvIn) {}
    uint16_t blockCount = 1;
    uint32_t blockLen = 0;  // bytes
    uint32_t srcStride = 0;
    uint32_t dstStride = 0;
    uint32_t rsv = 0;
};

struct DataCopyPadParams {
    DataCopyPadParams() = default;
    DataCopyPadParams(bool isPadIn, uint8_t left, uint8_t right, uint64_t value)
        : isPad(isPadIn), leftPadding(left), rightPadding(right), paddingValue(value) {}
    bool isPad = false;
    uint8_t leftPadding = 0;
    uint8_t rightPadding = 0;
    uint64_t paddingValue = 0;
};

template <class T> struct DataCopyPadExtParams {
    DataCopyPadExtParams() = default;
    DataCopyPadExtParams(bool isPadIn, uint8_t left, uint8_t right, typename ascendc_emu::Identity<T>::type value)
        : isPad(isPadIn), leftPadding(left), rightPadding(right), paddingValue(value) {}
    bool isPad = false;
    uint8_t leftPadding = 0;
    uint8_t rightPadding = 0;
    T paddingValue{};
};

}  // namespace AscendC

namespace ascendc_emu {

constexpr uint8_t kPoison = 0xFF;  // undefined UB bytes read as NaN (float, half) or -1 (integers)

// DataCopy moves whole 32-byte blocks (calCount / (32 / sizeof(T)) of them): a length that is not a multiple of
// 32 bytes raises no error on the NPU and its tail is not copied. So here: the whole blocks, and a note.
inline uint64_t whole_blocks(uint64_t bytes, const char *api, const Loc &loc) {
    if (bytes % 32 != 0)
        note("datacopy-partial-block", loc, "%s of %llu bytes copies %llu: its length is not a multiple of 32 bytes, "
             "so the NPU moves the whole 32-byte blocks and drops the last %llu bytes (DataCopyPad copies any length)",
             api, (unsigned long long)bytes, (unsigned long long)(bytes / 32 * 32), (unsigned long long)(bytes % 32));
    return bytes / 32 * 32;
}

// One strided copy: `count` blocks of `len` bytes, `src_gap`/`dst_gap` bytes between consecutive blocks.
inline void strided(uint8_t *dst, const uint8_t *src, uint64_t count, uint64_t len, uint64_t src_gap,
                    uint64_t dst_gap) {
    for (uint64_t b = 0; b < count; b++) std::memmove(dst + b * (len + dst_gap), src + b * (len + src_gap), len);
}

// A UB -> GM write: plain, or (after SetAtomicAdd/Max/Min<T>) combined element by element with what GM holds,
// in T's arithmetic (half and bfloat16 through float, rounded back). The blocks take turns (launch.h), so each
// combination is atomic; the NPU's order of the blocks' writes may differ, which changes only the rounding.
template <class T> void gm_write(uint8_t *dst, const uint8_t *src, uint64_t bytes, const char *api, const Loc &loc) {
    gm_touch(dst, bytes, g_block.atomic == 0 ? kGmWrite : kGmAtomic, api, loc, src);
    if (g_block.atomic == 0) {
        std::memmove(dst, src, bytes);
        return;
    }
    if (std::strcmp(g_block.atomic_type, type_name<T>()) != 0)
        fail(kError, loc, "%s of %s to GM while SetAtomic*<%s> is set: the atomic type must be the copied one", api,
             type_name<T>(), g_block.atomic_type);
    if (bytes % sizeof(T) != 0)
        fail(kError, loc, "%s under an atomic mode writes %llu bytes, not whole %s elements", api,
             (unsigned long long)bytes, type_name<T>());
    for (uint64_t i = 0; i < bytes; i += sizeof(T)) {
        T a, b;
        std::memcpy(&a, dst + i, sizeof(T));
        std::memcpy(&b, src + i, sizeof(T));
        auto x = up(a), y = up(b);
        T r = down<T>(g_block.atomic == 1 ? x + y : g_block.atomic == 2 ? (x > y ? x : y) : (x < y ? x : y));
        std::memcpy(dst + i, &r, sizeof(T));
    }
}

// bytes written past a tensor's length but inside its buffer (a DataCopyPad's dummies), for the pipe model
template <class T> void dummies_in_buffer(const AscendC::LocalTensor<T> &t, uint8_t *p, uint64_t bytes,
                                          const char *api, const Loc &loc) {
    Slot *slot = t.slot();
    if (slot == nullptr) return;
    uint64_t off = uint64_t(p - g_block.ub.data());
    if (off + bytes > slot->offset + slot->bytes)
        fail(kError, loc, "%s: its dummy elements reach UB byte %llu, past the end of the tensor's buffer (UB bytes "
             "[%llu, %llu))", api, (unsigned long long)(off + bytes), (unsigned long long)slot->offset,
             (unsigned long long)(slot->offset + slot->bytes));
    ub_access(slot, reinterpret_cast<T *>(p), bytes, true, api, loc);
}

template <class T> uint8_t *ub_span(const AscendC::LocalTensor<T> &t, uint64_t bytes, bool write, const char *api,
                                     const Loc &loc) {
    t.aligned(api, loc);
    uint32_t elems = static_cast<uint32_t>((bytes + sizeof(T) - 1) / sizeof(T));
    return reinterpret_cast<uint8_t *>(t.use(elems, write, api, loc));
}

}  // namespace ascendc_emu

namespace AscendC {

template <class T> void DataCopy(const LocalTensor<T> &dst, const GlobalTensor<T> &src, uint32_t count, ASCENDC_EMU_LOC) {
    ASCENDC_EMU_PIPE(kPipeMTE2);
    uint64_t bytes = ascendc_emu::whole_blocks(uint64_t(count) * sizeof(T), "DataCopy", loc);
    uint8_t *d = ascendc_emu::ub_span(dst, bytes, true, "DataCopy", loc);
    ascendc_emu::gm_fetch(d, reinterpret_cast<const uint8_t *>(src.raw()), bytes, "DataCopy", loc);
}

template <class T> void DataCopy(const GlobalTensor<T> &dst, const LocalTensor<T> &src, uint32_t count, ASCENDC_EMU_LOC) {
    ASCENDC_EMU_PIPE(kPipeMTE3);
    uint64_t bytes = ascendc_emu::whole_blocks(uint64_t(count) * sizeof(T), "DataCopy", loc);
    uint8_t *s = ascendc_emu::ub_span(src, bytes, false, "DataCopy", loc);
    ascendc_emu::gm_check(dst.raw(), bytes, true, "DataCopy", loc);
    ascendc_emu::gm_write<T>(reinterpret_cast<uint8_t *>(dst.raw()), s, bytes, "DataCopy", loc);
}

template <class T> void DataCopy(const LocalTensor<T> &dst, const LocalTensor<T> &src, uint32_t count, ASCENDC_EMU_LOC) {
    ASCENDC_EMU_PIPE(kPipeV);  // UB -> UB runs on the vector pipe
    uint64_t bytes = ascendc_emu::whole_blocks(uint64_t(count) * sizeof(T), "DataCopy", loc);
    uint8_t *s = ascendc_emu::ub_span(src, bytes, false, "DataCopy", loc);
    uint8_t *d = ascendc_emu::ub_span(dst, bytes, true, "DataCopy", loc);
    std::memmove(d, s, bytes);
}

// DataCopyParams: blockCount blocks of blockLen 32-byte units, srcStride/dstStride 32-byte units between them.
template <class T> void DataCopy(const LocalTensor<T> &dst, const GlobalTensor<T> &src, const DataCopyParams &p,
                                 ASCENDC_EMU_LOC) {
    ASCENDC_EMU_PIPE(kPipeMTE2);
    uint64_t len = p.blockLen * 32ull, sg = p.srcStride * 32ull, dg = p.dstStride * 32ull;
    if (p.blockCount == 0) return;
    uint64_t dspan = p.blockCount * (len + dg) - dg;
    uint8_t *d = ascendc_emu::ub_span(dst, dspan, true, "DataCopy", loc);
    const uint8_t *s = reinterpret_cast<const uint8_t *>(src.raw());
    for (uint64_t b = 0; b < p.blockCount; b++)
        ascendc_emu::gm_fetch(d + b * (len + dg), s + b * (len + sg), len, "DataCopy", loc);
}

template <class T> void DataCopy(const GlobalTensor<T> &dst, const LocalTensor<T> &src, const DataCopyParams &p,
                                 ASCENDC_EMU_LOC) {
    ASCENDC_EMU_PIPE(kPipeMTE3);
    uint64_t len = p.blockLen * 32ull, sg = p.srcStride * 32ull, dg = p.dstStride * 32ull;
    if (p.blockCount == 0) return;
    uint64_t sspan = p.blockCount * (len + sg) - sg, dspan = p.blockCount * (len + dg) - dg;
    uint8_t *s = ascendc_emu::ub_span(src, sspan, false, "DataCopy", loc);
    ascendc_emu::gm_check(dst.raw(), dspan, true, "DataCopy", loc);
    for (uint64_t b = 0; b < p.blockCount; b++)
        ascendc_emu::gm_write<T>(reinterpret_cast<uint8_t *>(dst.raw()) + b * (len + dg), s + b * (len + sg), len,
                                 "DataCopy", loc);
}

template <class T> void DataCopy(const LocalTensor<T> &dst, const LocalTensor<T> &src, const DataCopyParams &p,
                                 ASCENDC_EMU_LOC) {
    ASCENDC_EMU_PIPE(kPipeV);
    uint64_t len = p.blockLen * 32ull, sg = p.srcStride * 32ull, dg = p.dstStride * 32ull;
    if (p.blockCount == 0) return;
    uint8_t *s = ascendc_emu::ub_span(src, p.blockCount * (len + sg) - sg, false, "DataCopy", loc);
    uint8_t *d = ascendc_emu::ub_span(dst, p.blockCount * (len + dg) - dg, true, "DataCopy", loc);
    ascendc_emu::strided(d, s, p.blockCount, len, sg, dg);
}

// GM -> UB, any length: each block lands on a 32-byte boundary, left/right padding (elements) around it, then dummy
// elements up to the boundary. As the documentation says: with no left or right padding the dummies hold the block's
// first element; with padding, the padded elements and the dummies hold paddingValue with isPad, the SetPadValue
// value without it, else they are undefined (poison here).
template <class T> void DataCopyPad(const LocalTensor<T> &dst, const GlobalTensor<T> &src, const DataCopyExtParams &p,
                                    const DataCopyPadExtParams<T> &pad, ASCENDC_EMU_LOC) {
    ASCENDC_EMU_PIPE(kPipeMTE2);
    if (p.blockCount == 0 || p.blockLen == 0) return;
    if (pad.leftPadding * sizeof(T) > 32 || pad.rightPadding * sizeof(T) > 32)
        ascendc_emu::fail(ascendc_emu::kError, loc, "DataCopyPad: left/right padding of more than 32 bytes");
    uint64_t left = pad.leftPadding * sizeof(T), right = pad.rightPadding * sizeof(T);
    uint64_t row = (left + p.blockLen + right + 31) / 32 * 32, gap = uint64_t(p.dstStride) * 32;
    uint64_t dspan = p.blockCount * (row + gap) - gap;
    // the tensor must hold the last row's data (and padding); its dummies up to the 32-byte boundary land in the
    // rest of that block, which its buffer holds whatever the tensor's length (a Get(len) of a length that is no
    // whole number of blocks), as on the NPU, where a tensor's length bounds nothing
    uint64_t data = dspan - row + (left + p.blockLen + right);
    uint8_t *d = ascendc_emu::ub_span(dst, data, true, "DataCopyPad", loc);
    if (dspan > data) ascendc_emu::dummies_in_buffer(dst, d + data, dspan - data, "DataCopyPad", loc);
    const uint8_t *s = reinterpret_cast<const uint8_t *>(src.raw());
    const ascendc_emu::Block &blk = ascendc_emu::g_block;
    const bool padded = left != 0 || right != 0;
    const bool valued = pad.isPad || (blk.pad_set && blk.pad_size == sizeof(T));
    T value = pad.paddingValue;
    if (!pad.isPad && valued) std::memcpy(&value, &blk.pad_value, sizeof(T));
    for (uint64_t b = 0; b < p.blockCount; b++) {
        uint8_t *r = d + b * (row + gap);
        if (padded && valued) {
            T *e = reinterpret_cast<T *>(r);
            for (uint64_t k = 0; k < row / sizeof(T); k++) e[k] = value;
        } else {
            std::memset(r, ascendc_emu::kPoison, row);
        }
        ascendc_emu::gm_fetch(r + left, s + b * (uint64_t(p.blockLen) + p.srcStride), p.blockLen, "DataCopyPad", loc);
        if (!padded)  // the dummies: the block's first element
            for (uint64_t k = (p.blockLen + sizeof(T) - 1) / sizeof(T) * sizeof(T); k + sizeof(T) <= row; k += sizeof(T))
                std::memcpy(r + k, r, sizeof(T));
    }
}

template <class T> void DataCopyPad(const LocalTensor<T> &dst, const GlobalTensor<T> &src, const DataCopyParams &p,
                                    const DataCopyPadParams &pad, ASCENDC_EMU_LOC) {
    T value;
    uint64_t raw = pad.paddingValue;
    std::memcpy(&value, &raw, sizeof(T) < 8 ? sizeof(T) : 8);
    DataCopyPad(dst, src, DataCopyExtParams(p.blockCount, p.blockLen, p.srcStride, p.dstStride, 0),
                DataCopyPadExtParams<T>(pad.isPad, pad.leftPadding, pad.rightPadding, value), loc);
}

// UB -> GM, any length: each block is read from a 32-byte boundary and exactly blockLen bytes are written.
template <class T> void DataCopyPad(const GlobalTensor<T> &dst, const LocalTensor<T> &src, const DataCopyExtParams &p,
                                    ASCENDC_EMU_LOC) {
    ASCENDC_EMU_PIPE(kPipeMTE3);
    if (p.blockCount == 0 || p.blockLen == 0) return;
    uint64_t row = (uint64_t(p.blockLen) + 31) / 32 * 32, gap = uint64_t(p.srcStride) * 32;
    uint64_t sspan = p.blockCount * (row + gap) - gap;
    uint64_t dspan = p.blockCount * (uint64_t(p.blockLen) + p.dstStride) - p.dstStride;
    const uint8_t *s = ascendc_emu::ub_span(src, sspan - (row - p.blockLen), false, "DataCopyPad", loc);
    ascendc_emu::gm_check(dst.raw(), dspan, true, "DataCopyPad", loc);
    uint8_t *d = reinterpret_cast<uint8_t *>(dst.raw());
    for (uint64_t b = 0; b < p.blockCount; b++)
        ascendc_emu::gm_write<T>(d + b * (uint64_t(p.blockLen) + p.dstStride), s + b * (row + gap), p.blockLen,
                                 "DataCopyPad", loc);
}

template <class T> void DataCopyPad(const GlobalTensor<T> &dst, const LocalTensor<T> &src, const DataCopyParams &p,
                                    ASCENDC_EMU_LOC) {
    DataCopyPad(dst, src, DataCopyExtParams(p.blockCount, p.blockLen, p.srcStride, p.dstStride, 0), loc);
}

// the value DataCopyPad pads with when its isPad is false (GM -> VECIN/VECOUT)
template <class T, TPosition pos = TPosition::MAX> void SetPadValue(T paddingValue) {
    ascendc_emu::Block &b = ascendc_emu::g_block;
    b.pad_set = true;
    b.pad_size = sizeof(T);
    b.pad_value = 0;
    std::memcpy(&b.pad_value, &paddingValue, sizeof(T));
}

// GM[0, size) = value, by this core (InitGlobalMemory(gm, size, value))
template <class T> void InitGlobalMemory(const GlobalTensor<T> &gm, const uint64_t size,
                                         const typename ascendc_emu::Identity<T>::type value, ASCENDC_EMU_LOC) {
    ascendc_emu::gm_check(gm.raw(), size * sizeof(T), true, "InitGlobalMemory", loc);
    T v = value;
    for (uint64_t i = 0; i < size; i++) ascendc_emu::gm_write<T>(reinterpret_cast<uint8_t *>(gm.raw() + i),
                                                                  reinterpret_cast<const uint8_t *>(&v), sizeof(T),
                                                                  "InitGlobalMemory", loc);
}

// the earlier name of the same fill: CANN's kernel_operator_common_intf.h declares `InitOutput(GlobalTensor<T>
// gmWorkspaceAddr, uint32_t size, T value = 0)`, deprecated there for Fill, still in answers written for CANN 7/8
template <class T> void InitOutput(const GlobalTensor<T> &gm, const uint32_t size,
                                   const typename ascendc_emu::Identity<T>::type value = 0, ASCENDC_EMU_LOC) {
    InitGlobalMemory(gm, uint64_t(size), value, loc);
}

// the atomic mode of this core's UB -> GM copies, until SetAtomicNone
template <class T> void SetAtomicAdd() { ascendc_emu::g_block.atomic = 1; ascendc_emu::g_block.atomic_type = ascendc_emu::type_name<T>(); }
template <class T> void SetAtomicMax() { ascendc_emu::g_block.atomic = 2; ascendc_emu::g_block.atomic_type = ascendc_emu::type_name<T>(); }
template <class T> void SetAtomicMin() { ascendc_emu::g_block.atomic = 3; ascendc_emu::g_block.atomic_type = ascendc_emu::type_name<T>(); }
inline void SetAtomicNone() { ascendc_emu::g_block.atomic = 0; ascendc_emu::g_block.atomic_type = nullptr; }

}  // namespace AscendC
