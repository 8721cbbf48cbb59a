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

// What each pipe last wrote and read of a buffer, in its latest epoch: up to kRanges byte ranges of UB, each with
// the instruction that touched it first.
constexpr int kRanges = 8;
struct UbRange {
    uint32_t lo, hi;
    const char *api, *file;
    int line;
};
struct UbRecord {
    uint32_t epoch = 0;  // 0: nothing recorded
    uint32_t n = 0;
    UbRange r[kRanges];
};

struct Slot {
    uint64_t offset = 0;  // in the block's UB
    uint64_t bytes = 0;
    int state = kFree;
    uint32_t gen = 0;
    const void *owner = nullptr;  // the queue (or TBuf) it belongs to
    // a queue's buffer: the pipes of its queue (producer, consumer); -1 for a TBuf or the stack buffer
    int queue_prod = -1, queue_cons = -1;
    // InitBuffer placed it (partly) past the unified buffer: the NPU's InitBuffer does not check, and an access past
    // the end faults (LocalTensor::use); where InitBuffer was called, for the message
    bool past_ub = false;
    // a TBuf::Get asked for more than the TBuf holds (no error on the NPU, see TBuf::Get): each access is then
    // checked against the TBuf's end, as past it the NPU reads or overwrites the next buffer
    bool asked_past = false;
    Loc init{nullptr, 0};
    const char *what = "a UB buffer";  // how a report names it: "a TBuf", "a buffer of a TQue<VECIN>"
    // the pipe model: what each pipe wrote and read of it; for a queue's buffer the tokens of its last EnQue
    // (producer -> consumer) and FreeTensor (consumer -> producer)
    UbRecord wrote[kPipes], read[kPipes];
    Clock enq_token, free_token;
};

[[noreturn]] inline void past_ub(const Slot *slot, const char *api, const Loc &loc) {
    fail(kError, loc, "%s uses a buffer at UB bytes [%llu, %llu), past the end of the unified buffer (%llu bytes): "
         "its InitBuffer (%s:%d) asked for more UB than the core has, and on the NPU this access faults", api,
         (unsigned long long)slot->offset, (unsigned long long)(slot->offset + slot->bytes),
         (unsigned long long)g_config.ub, slot->init.file ? slot->init.file : "?", slot->init.line);
}

inline void ub_record(UbRecord &rec, uint32_t epoch, uint32_t lo, uint32_t hi, const char *api, const Loc &loc) {
    if (rec.epoch != epoch) {  // an earlier epoch of the same pipe is ordered before whatever orders this one
        rec.epoch = epoch;
        rec.n = 0;
    }
    for (uint32_t k = 0; k < rec.n; k++) {
        UbRange &r = rec.r[k];
        if (lo <= r.hi && hi >= r.lo) {
            r.lo = std::min(r.lo, lo);
            r.hi = std::max(r.hi, hi);
            return;
        }
    }
    if (rec.n == kRanges) {  // full: the oldest range goes (a race on it may go unseen; none is invented)
        std::memmove(rec.r, rec.r + 1, sizeof(UbRange) * (kRanges - 1));
        rec.n--;
    }
    rec.r[rec.n++] = UbRange{lo, hi, api, loc.file, loc.line};
}

[[noreturn]] inline void pipe_race(const Slot *s, const char *kind, int q, int p, uint32_t lo, uint32_t hi,
                                   const UbRange &other, const char *api, const Loc &loc) {
    fail(kError, loc,
         "pipe race on %s (UB offset %llu, %llu bytes): %s on the %s %s UB bytes [%u, %u) that %s on the %s wrote at "
         "%s:%d, and no queue, SetFlag/WaitFlag<HardEvent::%s_%s> or PipeBarrier<PIPE_ALL> orders the two: the pipes "
         "run asynchronously on the NPU, so the result is undefined", s->what, (unsigned long long)s->offset,
         (unsigned long long)s->bytes, api, pipe_words(q), kind, std::max(lo, other.lo), std::min(hi, other.hi),
         other.api, pipe_words(p), other.file ? other.file : "?", other.line, pipe_name(p), pipe_name(q));
}

// THE helper every API uses for a UB operand: bytes [ptr, ptr + bytes) of `slot`'s buffer are read (or written)
// by the pipe of the API running (g_block.pipe_now: the vector pipe unless the API declared another with
// ASCENDC_EMU_PIPE(kPipeMTE2) etc., see base.h). LocalTensor::use() calls it, so an API that takes its operands
// through use() (or copy.h's ub_span) needs nothing more than its pipe; one that reaches UB another way calls
// ub_access itself. A read of what another pipe wrote, or a write over what another pipe wrote or still reads,
// with nothing ordering the two (a queue, SetFlag/WaitFlag, PipeBarrier<PIPE_ALL>) is an error naming the buffer
// and both instructions: on the NPU the pipes run asynchronously and the values are undefined. The instructions
// themselves run at once, in program order, so the numbers never depend on the race: it is reported instead.
inline void ub_access(Slot *slot, const void *ptr, uint64_t bytes, bool write, const char *api, const Loc &loc) {
    int q = g_block.pipe_now;
    if (slot == nullptr || bytes == 0 || q < 0 || q >= kPipes) return;
    uint32_t lo = static_cast<uint32_t>(reinterpret_cast<const uint8_t *>(ptr) - g_block.ub.data());
    uint32_t hi = lo + static_cast<uint32_t>(bytes);
    const Clock &seen = g_block.vc[q];
    for (int p = 0; p < kPipes && !g_config.auto_sync; p++) {  // with auto-sync the compiler orders the two
        if (p == q) continue;
        const UbRecord &w = slot->wrote[p];
        if (w.epoch > seen.c[p])
            for (uint32_t k = 0; k < w.n; k++)
                if (lo < w.r[k].hi && w.r[k].lo < hi)
                    pipe_race(slot, write ? "writes over" : "reads", q, p, lo, hi, w.r[k], api, loc);
        // a scalar read is done before the scalar unit issues the next instruction (it waits for the value): a
        // later write of any pipe is ordered after it
        const UbRecord &r = slot->read[p];
        if (write && p != kPipeS && r.epoch > seen.c[p])
            for (uint32_t k = 0; k < r.n; k++)
                if (lo < r.r[k].hi && r.r[k].lo < hi) {
                    UbRange other = r.r[k];
                    fail(kError, loc,
                         "pipe race on %s (UB offset %llu, %llu bytes): %s on the %s writes UB bytes [%u, %u) that "
                         "%s on the %s may still be reading (at %s:%d), and no queue, SetFlag/WaitFlag<HardEvent::"
                         "%s_%s> or PipeBarrier<PIPE_ALL> orders the two: the pipes run asynchronously on the NPU, so "
                         "the read value is undefined", slot->what, (unsigned long long)slot->offset,
                         (unsigned long long)slot->bytes, api, pipe_words(q), std::max(lo, other.lo),
                         std::min(hi, other.hi), other.api, pipe_words(p), other.file ? other.file : "?", other.line,
                         pipe_name(p), pipe_name(q));
                }
    }
    if (write || q != kPipeS) ub_record(write ? slot->wrote[q] : slot->read[q], seen.c[q], lo, hi, api, loc);
}

// The buffers a raw UB address may fall in (a CCE intrinsic's __ubuf__ pointer, TransDataTo5HD's address lists):
// each queue's and TBuf's, registered while it lives, so such an access goes through ub_access as well.
inline void register_slot(Slot *s) {
    std::vector<Slot *> &v = g_block.slots;
    if (std::find(v.begin(), v.end(), s) == v.end()) v.push_back(s);
}
inline void unregister_slot(Slot *s) {
    std::vector<Slot *> &v = g_block.slots;
    v.erase(std::remove(v.begin(), v.end(), s), v.end());
}
// bytes [addr, addr + bytes) of UB, read or written by the running API's pipe: recorded against the buffer the
// address falls in (the latest one InitBuffer placed there), up to that buffer's end; nothing where no buffer is
inline void ub_access_raw(uint64_t addr, uint64_t bytes, bool write, const char *api, const Loc &loc) {
    const std::vector<Slot *> &v = g_block.slots;
    for (size_t k = v.size(); k-- > 0;) {
        Slot *s = v[k];
        if (addr >= s->offset && addr < s->offset + s->bytes) {
            ub_access(s, g_block.ub.data() + addr, std::min(bytes, s->offset + s->bytes - addr), write, api, loc);
            return;
        }
    }
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
    // the scalar unit's accesses (PIPE_S): after a vector or copy instruction on the same bytes they need a
    // SetFlag/WaitFlag (V_S, MTE2_S; S_V, S_MTE3 the other way), as the documentation's examples do
    T GetValue(uint32_t i, ASCENDC_EMU_LOC) const {
        ASCENDC_EMU_PIPE(kPipeS);
        ascendc_emu::check_use(slot_, gen_, false, "GetValue", loc);
        bounds(i, "GetValue", loc);
        in_ub(i + 1, "GetValue", loc);
        ascendc_emu::ub_access(slot_, ptr_ + i, sizeof(T), false, "GetValue", loc);
        return ptr_[i];
    }
    void SetValue(uint32_t i, const typename ascendc_emu::Identity<T>::type &v, ASCENDC_EMU_LOC) const {
        ASCENDC_EMU_PIPE(kPipeS);
        ascendc_emu::check_use(slot_, gen_, true, "SetValue", loc);
        bounds(i, "SetValue", loc);
        in_ub(i + 1, "SetValue", loc);
        ascendc_emu::ub_access(slot_, ptr_ + i, sizeof(T), true, "SetValue", loc);
        ptr_[i] = v;
    }
    // `t(i)`: read or written through the reference, it is recorded as a scalar read (a write through it is
    // not seen by the pipe model)
    T &operator()(uint32_t i, ASCENDC_EMU_LOC) const {
        ASCENDC_EMU_PIPE(kPipeS);
        ascendc_emu::check_use(slot_, gen_, false, "LocalTensor()", loc);
        bounds(i, "LocalTensor()", loc);
        in_ub(i + 1, "LocalTensor()", loc);
        ascendc_emu::ub_access(slot_, ptr_ + i, sizeof(T), false, "LocalTensor()", loc);
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
        ascendc_emu::ub_access(slot_, ptr_, uint64_t(count) * sizeof(T), write, api, loc);
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
        if (slot_->asked_past && GetPhyAddr() + elems * sizeof(T) > slot_->offset + slot_->bytes)
            ascendc_emu::fail(ascendc_emu::kError, loc, "%s uses UB bytes up to %llu of a tensor from TBuf::Get past "
                              "the TBuf's %llu bytes (UB bytes [%llu, %llu)): on the NPU this reads or overwrites the "
                              "next buffer", api, (unsigned long long)(GetPhyAddr() + elems * sizeof(T)),
                              (unsigned long long)slot_->bytes, (unsigned long long)slot_->offset,
                              (unsigned long long)(slot_->offset + slot_->bytes));
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
        ascendc_emu::gm_touch(addr_ + i, sizeof(T), ascendc_emu::kGmRead, "GlobalTensor::GetValue", loc);
        return addr_[i];
    }
    void SetValue(uint64_t i, const typename ascendc_emu::Identity<T>::type &v, ASCENDC_EMU_LOC) const {
        ascendc_emu::gm_check(addr_ + i, sizeof(T), true, "GlobalTensor::SetValue", loc);
        T w = v;
        ascendc_emu::gm_touch(addr_ + i, sizeof(T), ascendc_emu::kGmWrite, "GlobalTensor::SetValue", loc, &w);
        addr_[i] = w;
    }
    // the element at offset i by reference (kernel_tensor.h declares `T& operator()(const uint64_t offset) const` on
    // GlobalTensor as on LocalTensor): checked as a write, since what the reference is used for is not known here;
    // recorded for the race check between blocks as a read (blocks reading one value through it is no race, and a
    // race on a write through it may go unseen; none is invented)
    T &operator()(uint64_t i) const {
        ascendc_emu::gm_check(addr_ + i, sizeof(T), true, "GlobalTensor()", ascendc_emu::Loc{nullptr, 0});
        ascendc_emu::gm_touch(addr_ + i, sizeof(T), ascendc_emu::kGmRead, "GlobalTensor()", ascendc_emu::Loc{nullptr, 0});
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
