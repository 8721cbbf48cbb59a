// ascendc-cpu: LocalTensor (a view of a UB buffer that knows its queue state) and GlobalTensor (GM, checked).
#pragma once

#include "ascendc_emu/base.h"

namespace AscendC {

enum class TPosition : uint8_t {
    GM, A1, A2, B1, B2, C1, C2, CO1, CO2, VECIN, VECOUT, VECCALC, LCM = VECCALC, SPM, SHM = SPM, TSCM, C2PIPE2GM,
    C2PIPE2LOCAL, MAX
};
using QuePosition = TPosition;

}  // namespace AscendC

namespace ascendc_emu {

// A UB buffer of a queue or a TBuf. Tensors taken from it remember its generation: FreeTensor starts a new one,
// so a tensor used after its FreeTensor is caught.
enum SlotState : int { kFree, kAllocated, kEnqueued, kDequeued, kScratch };

struct Slot {
    uint64_t offset = 0;  // in the block's UB
    uint64_t bytes = 0;
    int state = kFree;
    uint32_t gen = 0;
    const void *owner = nullptr;  // the queue (or TBuf) it belongs to
    // InitBuffer placed it (partly) past the unified buffer: the NPU's InitBuffer does not check, and an access past
    // the end faults (LocalTensor::use); where InitBuffer was called, for the message
    bool past_ub = false;
    Loc init{nullptr, 0};
};

[[noreturn]] inline void past_ub(const Slot *slot, const char *api, const Loc &loc) {
    fail(kError, loc, "%s uses a buffer at UB bytes [%llu, %llu), past the end of the unified buffer (%llu bytes): "
         "its InitBuffer (%s:%d) asked for more UB than the core has, and on the NPU this access faults", api,
         (unsigned long long)slot->offset, (unsigned long long)(slot->offset + slot->bytes),
         (unsigned long long)g_config.ub, slot->init.file ? slot->init.file : "?", slot->init.line);
}

inline const char *state_name(int s) {
    switch (s) {
        case kFree: return "freed";
        case kAllocated: return "allocated";
        case kEnqueued: return "enqueued";
        case kDequeued: return "dequeued";
        default: return "a TBuf";
    }
}

inline void check_use(const Slot *slot, uint32_t gen, bool write, const char *api, const Loc &loc) {
    if (slot == nullptr) fail(kError, loc, "%s: the LocalTensor was never allocated (no AllocTensor, DeQue or Get)", api);
    if (slot->gen != gen || slot->state == kFree)
        fail(kError, loc, "%s uses a LocalTensor after its FreeTensor (its buffer may already hold other data)", api);
    if (write && slot->state == kEnqueued)
        fail(kError, loc, "%s writes a LocalTensor after its EnQue: the queue's consumer may already be copying it "
             "(compute first, then EnQue)", api);
}

}  // namespace ascendc_emu

namespace AscendC {

template <class T> class LocalTensor {
public:
    using PrimType = T;
    LocalTensor() = default;
    LocalTensor(T *ptr, uint32_t size, ascendc_emu::Slot *slot, uint32_t gen)
        : ptr_(ptr), size_(size), slot_(slot), gen_(gen) {}

    // `dst = a + b` (and -, *, /, &, |): the instruction over dst.GetSize() elements (expr.h), as on the NPU
    template <class E, class = typename E::ascendc_emu_expr> LocalTensor &operator=(const E &e) {
        e.run(*this);
        return *this;
    }
    LocalTensor operator[](uint32_t offset) const {
        return LocalTensor(ptr_ + offset, offset <= size_ ? size_ - offset : 0, slot_, gen_);
    }
    T GetValue(uint32_t i, ASCENDC_EMU_LOC) const {
        ascendc_emu::check_use(slot_, gen_, false, "GetValue", loc);
        bounds(i, "GetValue", loc);
        in_ub(i + 1, "GetValue", loc);
        return ptr_[i];
    }
    void SetValue(uint32_t i, const typename ascendc_emu::Identity<T>::type &v, ASCENDC_EMU_LOC) const {
        ascendc_emu::check_use(slot_, gen_, true, "SetValue", loc);
        bounds(i, "SetValue", loc);
        in_ub(i + 1, "SetValue", loc);
        ptr_[i] = v;
    }
    T &operator()(uint32_t i) const {
        ascendc_emu::Loc loc{nullptr, 0};
        ascendc_emu::check_use(slot_, gen_, false, "LocalTensor()", loc);
        bounds(i, "LocalTensor()", loc);
        in_ub(i + 1, "LocalTensor()", loc);
        return ptr_[i];
    }
    uint32_t GetSize() const { return size_; }
    uint32_t GetLength() const { return size_ * sizeof(T); }
    void SetSize(uint32_t size) { size_ = size; }
    uint64_t GetPhyAddr() const { return ptr_ ? reinterpret_cast<uint8_t *>(ptr_) - ascendc_emu::g_block.ub.data() : 0; }
    TPosition GetPosition() const { return TPosition::VECCALC; }
    template <class U> LocalTensor<U> ReinterpretCast() const {
        return LocalTensor<U>(reinterpret_cast<U *>(ptr_), static_cast<uint32_t>(uint64_t(size_) * sizeof(T) / sizeof(U)),
                              slot_, gen_);
    }

    // for the emulation: the elements, checked for `count` elements used for reading or writing
    T *use(uint32_t count, bool write, const char *api, const ascendc_emu::Loc &loc) const {
        ascendc_emu::check_use(slot_, gen_, write, api, loc);
        if (count > size_)
            ascendc_emu::fail(ascendc_emu::kError, loc, "%s: %u elements of a LocalTensor<%s> that has %u left in its "
                              "buffer", api, count, ascendc_emu::type_name<T>(), size_);
        in_ub(count, api, loc);
        return ptr_;
    }
    // the UB address must be 32-byte aligned for the vector unit and the copy engines
    void aligned(const char *api, const ascendc_emu::Loc &loc) const {
        uint64_t off = GetPhyAddr();
        if (off % 32 != 0)
            ascendc_emu::fail(ascendc_emu::kError, loc, "%s: the LocalTensor starts at UB offset %llu, not 32-byte "
                              "aligned", api, (unsigned long long)off);
    }
    T *raw() const { return ptr_; }
    ascendc_emu::Slot *slot() const { return slot_; }
    uint32_t gen() const { return gen_; }

private:
    // the first `elems` elements from ptr_ lie inside the unified buffer (see Slot::past_ub)
    void in_ub(uint64_t elems, const char *api, const ascendc_emu::Loc &loc) const {
        if (slot_->past_ub && GetPhyAddr() + elems * sizeof(T) > ascendc_emu::g_config.ub)
            ascendc_emu::past_ub(slot_, api, loc);
    }
    void bounds(uint32_t i, const char *api, const ascendc_emu::Loc &loc) const {
        if (i >= size_)
            ascendc_emu::fail(ascendc_emu::kError, loc, "%s(%u) past the end of a LocalTensor<%s> of %u elements", api,
                              i, ascendc_emu::type_name<T>(), size_);
    }
    T *ptr_ = nullptr;
    uint32_t size_ = 0;
    ascendc_emu::Slot *slot_ = nullptr;
    uint32_t gen_ = 0;
};

enum class CacheMode { CACHE_MODE_NORMAL, CACHE_MODE_DISABLE, CACHE_MODE_LAST, CACHE_MODE_PERSISTENT };

template <class T> class GlobalTensor {
public:
    using PrimType = T;
    void SetGlobalBuffer(T *buffer, uint64_t size = 0) {
        addr_ = buffer;
        size_ = size;
    }
    GlobalTensor operator[](uint64_t offset) const {
        GlobalTensor g;
        g.addr_ = addr_ + offset;
        g.size_ = size_ > offset ? size_ - offset : 0;
        return g;
    }
    T GetValue(uint64_t i, ASCENDC_EMU_LOC) const {
        ascendc_emu::gm_check(addr_ + i, sizeof(T), false, "GlobalTensor::GetValue", loc);
        return addr_[i];
    }
    void SetValue(uint64_t i, const typename ascendc_emu::Identity<T>::type &v, ASCENDC_EMU_LOC) const {
        ascendc_emu::gm_check(addr_ + i, sizeof(T), true, "GlobalTensor::SetValue", loc);
        addr_[i] = v;
    }
    // the element at offset i by reference (kernel_tensor.h declares `T& operator()(const uint64_t offset) const` on
    // GlobalTensor as on LocalTensor): checked as a write, since what the reference is used for is not known here
    T &operator()(uint64_t i) const {
        ascendc_emu::gm_check(addr_ + i, sizeof(T), true, "GlobalTensor()", ascendc_emu::Loc{nullptr, 0});
        return addr_[i];
    }
    T *GetPhyAddr() const { return addr_; }
    T *GetPhyAddr(uint64_t offset) const { return addr_ + offset; }
    uint64_t GetSize() const { return size_; }
    void SetL2CacheHint(CacheMode) {}
    T *raw() const { return addr_; }

private:
    T *addr_ = nullptr;
    uint64_t size_ = 0;
};

}  // namespace AscendC
