// ascendc-cpu: TPipe (UB allocation), TQue (AllocTensor/EnQue/DeQue/FreeTensor), TBuf, events and barriers.
//
// The instructions run at once, in program order, but the pipe model (base.h's clocks, tensor.h's ub_access)
// keeps what the NPU's asynchronous pipes would let each one see: a queue orders its producer and consumer
// pipes as the NPU's does (EnQue/DeQue: VECIN's MTE2 before V, VECOUT's V before MTE3; FreeTensor/AllocTensor
// the other way), SetFlag/WaitFlag<HardEvent::X_Y> orders pipe X's work so far before pipe Y's next, and
// PipeBarrier<PIPE_ALL> (and SyncAll) orders everything; a TBuf gets no ordering of its own. A queue's protocol
// is checked too: a DeQue of an empty queue, or an AllocTensor when every buffer is in use, would wait forever
// on the NPU and is a deadlock here; a tensor written after its EnQue or used after its FreeTensor is an error.
#pragma once

#include "ascendc_emu/tensor.h"

namespace AscendC {

enum class HardEvent : uint8_t {
    MTE2_MTE1, MTE1_MTE2, MTE1_M, M_MTE1, MTE2_V, V_MTE2, MTE3_V, V_MTE3, M_V, V_M, V_V, MTE3_MTE1, MTE1_MTE3,
    MTE1_V, MTE2_M, M_MTE2, V_MTE1, M_FIX, FIX_M, MTE3_MTE2, MTE2_MTE3, S_V, V_S, S_MTE2, MTE2_S, S_MTE3, MTE3_S,
    MTE2_FIX, FIX_MTE2, FIX_S, M_S, FIX_MTE3, MTE1_FIX, FIX_MTE1, FIX_FIX, MAX
};
enum event_t { EVENT_ID0, EVENT_ID1, EVENT_ID2, EVENT_ID3, EVENT_ID4, EVENT_ID5, EVENT_ID6, EVENT_ID7 };
enum pipe_t { PIPE_S, PIPE_V, PIPE_M, PIPE_MTE1, PIPE_MTE2, PIPE_MTE3, PIPE_ALL, PIPE_MTE4, PIPE_MTE5, PIPE_V2,
              PIPE_FIX, PIPE_NUM };
using TEventID = int8_t;

inline int64_t GetBlockIdx() { return ascendc_emu::g_block.idx; }
inline int64_t GetBlockNum() { return ascendc_emu::g_block.num; }
inline int64_t GetSubBlockIdx() { return 0; }
inline int64_t GetSubBlockNum() { return 1; }
inline int64_t GetTaskRation() { return 1; }
inline uint64_t GetSystemCycle() { return 0; }

namespace emu_detail {
using ascendc_emu::kPipeMTE2;
using ascendc_emu::kPipeMTE3;
using ascendc_emu::kPipeNone;
using ascendc_emu::kPipeS;
using ascendc_emu::kPipeV;

// the (source, destination) pipes of a HardEvent; the cube's and FIX's are not modelled (kPipeNone)
inline void event_pipes(HardEvent e, int &src, int &dst) {
    switch (e) {
        case HardEvent::MTE2_V: src = kPipeMTE2; dst = kPipeV; return;
        case HardEvent::V_MTE2: src = kPipeV; dst = kPipeMTE2; return;
        case HardEvent::MTE3_V: src = kPipeMTE3; dst = kPipeV; return;
        case HardEvent::V_MTE3: src = kPipeV; dst = kPipeMTE3; return;
        case HardEvent::V_V: src = kPipeV; dst = kPipeV; return;
        case HardEvent::MTE3_MTE2: src = kPipeMTE3; dst = kPipeMTE2; return;
        case HardEvent::MTE2_MTE3: src = kPipeMTE2; dst = kPipeMTE3; return;
        case HardEvent::S_V: src = kPipeS; dst = kPipeV; return;
        case HardEvent::V_S: src = kPipeV; dst = kPipeS; return;
        case HardEvent::S_MTE2: src = kPipeS; dst = kPipeMTE2; return;
        case HardEvent::MTE2_S: src = kPipeMTE2; dst = kPipeS; return;
        case HardEvent::S_MTE3: src = kPipeS; dst = kPipeMTE3; return;
        case HardEvent::MTE3_S: src = kPipeMTE3; dst = kPipeS; return;
        default: src = dst = kPipeNone; return;
    }
}
inline int pipe_of(pipe_t p) {
    switch (p) {
        case PIPE_S: return kPipeS;
        case PIPE_V: return kPipeV;
        case PIPE_MTE2: return kPipeMTE2;
        case PIPE_MTE3: return kPipeMTE3;
        default: return kPipeNone;
    }
}

inline void set(int key, int id, int src, const ascendc_emu::Loc &loc) {
    if (id < 0 || id >= 16) ascendc_emu::fail(ascendc_emu::kError, loc, "event id %d out of range [0, 16)", id);
    ascendc_emu::g_block.flags.push_back(ascendc_emu::PendingFlag{key, id, ascendc_emu::release(src)});
}
inline void wait(int key, int id, int dst, const char *api, const ascendc_emu::Loc &loc) {
    if (id < 0 || id >= 16) ascendc_emu::fail(ascendc_emu::kError, loc, "event id %d out of range [0, 16)", id);
    std::vector<ascendc_emu::PendingFlag> &f = ascendc_emu::g_block.flags;
    for (size_t k = 0; k < f.size(); k++)
        if (f[k].key == key && f[k].id == id) {
            ascendc_emu::acquire(dst, f[k].token);
            f.erase(f.begin() + static_cast<std::ptrdiff_t>(k));
            return;
        }
    ascendc_emu::fail(ascendc_emu::kDeadlock, loc, "%s(%d) with no SetFlag of that event before it: on the NPU this "
                      "waits forever", api, id);
}
}  // namespace emu_detail

template <HardEvent e> inline void SetFlag(int32_t id, ASCENDC_EMU_LOC) {
    int src, dst;
    emu_detail::event_pipes(e, src, dst);
    emu_detail::set(static_cast<int>(e), id, src, loc);
}
template <HardEvent e> inline void WaitFlag(int32_t id, ASCENDC_EMU_LOC) {
    int src, dst;
    emu_detail::event_pipes(e, src, dst);
    emu_detail::wait(static_cast<int>(e), id, dst, "WaitFlag", loc);
}
inline void set_flag(pipe_t src, pipe_t dst, event_t id, ASCENDC_EMU_LOC) {
    emu_detail::set(100 + src * 16 + dst, id, emu_detail::pipe_of(src), loc);
}
inline void wait_flag(pipe_t src, pipe_t dst, event_t id, ASCENDC_EMU_LOC) {
    emu_detail::wait(100 + src * 16 + dst, id, emu_detail::pipe_of(dst), "wait_flag", loc);
}
// a barrier within one pipe orders nothing across pipes (a pipe runs its instructions in order here already)
template <pipe_t p> inline void PipeBarrier() {
    if (p == PIPE_ALL) ascendc_emu::barrier_all();
}
inline void pipe_barrier(pipe_t p) {
    if (p == PIPE_ALL) ascendc_emu::barrier_all();
}
// every block waits for every other (launch.h runs the blocks' turns); each block's pipes drain first
inline void SyncAll(ASCENDC_EMU_LOC) {
    ascendc_emu::barrier_all();
    if (ascendc_emu::g_block.sync_all != nullptr) ascendc_emu::g_block.sync_all(loc);
    ascendc_emu::g_block.syncs++;
}
template <bool isAIVOnly> inline void SyncAll(ASCENDC_EMU_LOC) { SyncAll(loc); }  // SyncAll<true>(): the same
// the software form: the cores' flags in a GM workspace (GetBlockNum() * 32 bytes, zeroed) and a UB one (as many
// bytes); a barrier as the hardware form is
template <bool isAIVOnly = true>
inline void SyncAll(const GlobalTensor<int32_t> &gmWorkspace, const LocalTensor<int32_t> &ubWorkspace,
                    const int32_t usedCores = 0, ASCENDC_EMU_LOC) {
    uint32_t n = ascendc_emu::g_block.num;
    if (usedCores < 0 || uint32_t(usedCores) > n)
        ascendc_emu::fail(ascendc_emu::kError, loc, "SyncAll: usedCores %d outside [0, %u] (the launch's blocks)",
                          usedCores, n);
    ascendc_emu::gm_check(gmWorkspace.raw(), uint64_t(n) * 32, true, "SyncAll's GM workspace", loc);
    ubWorkspace.use(n * 8, true, "SyncAll's UB workspace", loc);
    SyncAll(loc);
}

template <pipe_t src, pipe_t dst> class TQueSync {
public:
    void SetFlag(TEventID id, ASCENDC_EMU_LOC) { set_flag(src, dst, static_cast<event_t>(id), loc); }
    void WaitFlag(TEventID id, ASCENDC_EMU_LOC) { wait_flag(src, dst, static_cast<event_t>(id), loc); }
};

class TPipe;

// The queue logic, whatever the queue's positions and depth.
// the pipe that fills a queue's buffers and the one that takes them, by its positions (kPipeNone: not modelled)
constexpr int producer_of(TPosition p) {
    return p == TPosition::VECIN ? ascendc_emu::kPipeMTE2
           : (p == TPosition::VECOUT || p == TPosition::VECCALC) ? ascendc_emu::kPipeV : ascendc_emu::kPipeNone;
}
constexpr int consumer_of(TPosition p) {
    return p == TPosition::VECOUT ? ascendc_emu::kPipeMTE3
           : (p == TPosition::VECIN || p == TPosition::VECCALC) ? ascendc_emu::kPipeV : ascendc_emu::kPipeNone;
}
constexpr const char *queue_name(TPosition p) {
    return p == TPosition::VECIN ? "a buffer of a TQue<VECIN>" : p == TPosition::VECOUT ? "a buffer of a TQue<VECOUT>"
           : p == TPosition::VECCALC ? "a buffer of a TQue<VECCALC>" : "a buffer of a queue";
}

class EmuQueue {
public:
    EmuQueue() = default;
    EmuQueue(int producer, int consumer, const char *what) : prod_(producer), cons_(consumer), what_(what) {}
    EmuQueue(const EmuQueue &) = delete;
    EmuQueue &operator=(const EmuQueue &) = delete;
    ~EmuQueue() { forget(); }

    template <class T> LocalTensor<T> AllocTensor(ASCENDC_EMU_LOC) {
        inited("AllocTensor", loc);
        for (uint32_t k = 0; k < num_; k++) {
            ascendc_emu::Slot &s = slots_[(next_ + k) % num_];
            if (s.state == ascendc_emu::kFree) {
                next_ = (next_ + k + 1) % num_;
                s.state = ascendc_emu::kAllocated;
                ascendc_emu::acquire(prod_, s.free_token);  // the consumer's reads of it are done
                return tensor<T>(s);
            }
        }
        ascendc_emu::fail(ascendc_emu::kDeadlock, loc, "AllocTensor: all %u buffers of the queue are in use "
                          "(allocated or enqueued, never freed): on the NPU AllocTensor waits forever", num_);
    }
    template <class T> bool EnQue(const LocalTensor<T> &t, ASCENDC_EMU_LOC) {
        inited("EnQue", loc);
        ascendc_emu::Slot *s = own(t.slot(), "EnQue", loc);
        ascendc_emu::check_use(s, t.gen(), false, "EnQue", loc);
        if (s->state == ascendc_emu::kEnqueued)
            ascendc_emu::fail(ascendc_emu::kError, loc, "EnQue of a LocalTensor already in the queue");
        if (depth_ > 0 && fifo_.size() >= uint32_t(depth_))
            ascendc_emu::fail(ascendc_emu::kError, loc, "EnQue on a full queue: TQue<..., %d> holds %d tensor%s and "
                              "none was DeQue'd since (a deeper queue, or DeQue before the next EnQue)", depth_, depth_,
                              depth_ == 1 ? "" : "s");
        s->state = ascendc_emu::kEnqueued;
        s->enq_token = ascendc_emu::release(prod_);  // what the producer wrote, for the consumer's DeQue
        fifo_.push_back(s);
        return true;
    }
    template <class T> LocalTensor<T> DeQue(ASCENDC_EMU_LOC) {
        inited("DeQue", loc);
        if (fifo_.empty())
            ascendc_emu::fail(ascendc_emu::kDeadlock, loc, "DeQue of an empty queue (nothing EnQue'd since the last "
                              "DeQue): on the NPU this waits forever");
        ascendc_emu::Slot *s = fifo_.front();
        fifo_.erase(fifo_.begin());
        s->state = ascendc_emu::kDequeued;
        ascendc_emu::acquire(cons_, s->enq_token);
        return tensor<T>(*s);
    }
    template <class T> void FreeTensor(const LocalTensor<T> &t, ASCENDC_EMU_LOC) {
        inited("FreeTensor", loc);
        ascendc_emu::Slot *s = t.slot();
        // The NPU's FreeTensor frees the tensor's own buffer (CANN's kernel_tquebind_impl.h: FreeTensor calls
        // FreeBuffer(tensor.GetBufferHandle()), which marks that buffer FREE and raises this queue's free event; its
        // check that the buffer is the queue's own is an ASCENDC_ASSERT, compiled in CANN's CPU debug build only).
        // So a tensor of another queue of the same positions is freed as its own queue would free it (a swap of two
        // such queues' FreeTensors is harmless; a note says so); with other positions the event orders the wrong
        // pipes, and a TBuf's tensor is no queue buffer: errors.
        if (s != nullptr && s->owner != this && s->queue_prod == prod_ && s->queue_cons == cons_ && s->queue_prod >= 0)
            ascendc_emu::note("freetensor-other-queue", loc, "FreeTensor of a LocalTensor of another queue of the same "
                              "positions: the NPU frees the tensor's own buffer, so this works as that queue's "
                              "FreeTensor would, but it is rarely meant");
        else
            s = own(s, "FreeTensor", loc);
        if (s->gen != t.gen() || s->state == ascendc_emu::kFree)
            ascendc_emu::fail(ascendc_emu::kError, loc, "FreeTensor of a LocalTensor already freed");
        if (s->state == ascendc_emu::kEnqueued)
            ascendc_emu::fail(ascendc_emu::kError, loc, "FreeTensor of a LocalTensor still in the queue (EnQue'd, "
                              "never DeQue'd)");
        s->state = ascendc_emu::kFree;
        s->gen++;
        s->free_token = ascendc_emu::release(cons_);  // the consumer is done with it: the producer may refill it
    }
    bool VacantInQue() const { return fifo_.size() < num_; }
    bool HasTensorInQue() const { return !fifo_.empty(); }
    int32_t GetTensorCountInQue() const { return static_cast<int32_t>(fifo_.size()); }
    bool HasIdleBuffer() const {
        for (uint32_t k = 0; k < num_; k++)
            if (slots_[k].state == ascendc_emu::kFree) return true;
        return false;
    }
    void FreeAllEvent() {}

    // TPipe::InitBuffer
    void init(uint32_t num, uint64_t bytes, uint64_t offset, const ascendc_emu::Loc &loc) {
        forget();
        num_ = num;
        slots_.reset(new ascendc_emu::Slot[num]);
        for (uint32_t k = 0; k < num; k++) {
            slots_[k].offset = offset + k * bytes;
            slots_[k].bytes = bytes;
            slots_[k].owner = this;
            slots_[k].queue_prod = prod_;
            slots_[k].queue_cons = cons_;
            slots_[k].past_ub = slots_[k].offset + bytes > ascendc_emu::g_config.ub;
            slots_[k].init = loc;
            slots_[k].what = what_;
            ascendc_emu::register_slot(&slots_[k]);
        }
        fifo_.clear();
        next_ = 0;
    }

private:
    void forget() {
        for (uint32_t k = 0; k < num_ && slots_; k++) ascendc_emu::unregister_slot(&slots_[k]);
    }
    void inited(const char *api, const ascendc_emu::Loc &loc) const {
        if (num_ == 0) ascendc_emu::fail(ascendc_emu::kError, loc, "%s on a queue no TPipe::InitBuffer gave buffers", api);
    }
    ascendc_emu::Slot *own(ascendc_emu::Slot *s, const char *api, const ascendc_emu::Loc &loc) const {
        if (s == nullptr) ascendc_emu::fail(ascendc_emu::kError, loc, "%s of a LocalTensor never allocated", api);
        if (s->owner != this)
            ascendc_emu::fail(ascendc_emu::kError, loc, "%s of a LocalTensor that belongs to another queue or TBuf", api);
        return s;
    }
    template <class T> LocalTensor<T> tensor(ascendc_emu::Slot &s) const {
        return LocalTensor<T>(reinterpret_cast<T *>(ascendc_emu::g_block.ub.data() + s.offset),
                              static_cast<uint32_t>(s.bytes / sizeof(T)), &s, s.gen);
    }
protected:
    int32_t depth_ = 0;  // TQue's depth: how many tensors it holds enqueued at once (0: not checked)

private:
    std::unique_ptr<ascendc_emu::Slot[]> slots_;
    std::vector<ascendc_emu::Slot *> fifo_;
    uint32_t num_ = 0, next_ = 0;
    int prod_ = ascendc_emu::kPipeNone, cons_ = ascendc_emu::kPipeNone;
    const char *what_ = "a buffer of a queue";
};

// TQue's third template argument as a `const TQueConfig *` (CANN's TQue reference: "mask是const TQueConfig*类型时"):
// the format conversions (nd2nz/nz2nd) apply to cube positions only, a static bufferLen/bufferNumber of 0 leaves
// the sizes to InitBuffer, so on the vector positions the emulation has, the config changes nothing.
struct TQueConfig {
    bool nd2nz = false;
    bool nz2nd = false;
    bool scmBlockGroup = false;
    uint32_t bufferLen = 0;
    uint32_t bufferNumber = 0;
    uint32_t consumerSize = 0;
    TPosition consumer[8] = {};
};

template <TPosition src, TPosition dst, int32_t depth, auto mask = 0> class TQueBind : public EmuQueue {
public:
    TQueBind() : EmuQueue(producer_of(src), consumer_of(dst), "a buffer of a TQueBind") { depth_ = depth; }
};
template <TPosition pos, int32_t depth, auto mask = 0> class TQue : public EmuQueue {
public:
    TQue() : EmuQueue(producer_of(pos), consumer_of(pos), queue_name(pos)) { depth_ = depth; }
};

template <TPosition pos = TPosition::VECCALC> class TBuf {
public:
    TBuf() = default;
    TBuf(const TBuf &) = delete;
    TBuf &operator=(const TBuf &) = delete;
    ~TBuf() { ascendc_emu::unregister_slot(&slot_); }
    // a TBuf's tensor stays its until the pipe goes: FreeTensor on it gives nothing back (as on the NPU)
    template <class T> void FreeTensor(LocalTensor<T> &) {}
    // TBuf inherits TQueBind's AllocTensor on the NPU: the TBuf's whole buffer, as Get
    template <class T> LocalTensor<T> AllocTensor(ASCENDC_EMU_LOC) { return Get<T>(loc); }
    template <class T> LocalTensor<T> Get(ASCENDC_EMU_LOC) { return Get<T>(static_cast<uint32_t>(slot_.bytes / sizeof(T)), loc); }
    template <class T> LocalTensor<T> Get(uint32_t len, ASCENDC_EMU_LOC) {
        // no InitBuffer: the NPU hands out a tensor at no real buffer, harmless until used (a kernel may Get one it
        // uses only for other dtypes); here it is a tensor that faults on its first use
        if (slot_.owner == nullptr) return LocalTensor<T>();
        // more than the TBuf holds: CANN's TBuf::Get (kernel_tbuf_impl.h) checks `len * sizeof(T) <= bufLen` only
        // in its CPU debug build (ASCENDC_CPU_DEBUG); on the NPU it returns a tensor of `len` elements at the
        // TBuf's start. So no error here: a note, and every access past the TBuf's end is one (Slot::asked_past)
        if (uint64_t(len) * sizeof(T) > slot_.bytes) {
            slot_.asked_past = true;
            ascendc_emu::note("tbuf-get-past", loc, "TBuf::Get<%s>(%u) asks for %llu bytes from a TBuf of %llu: "
                              "the NPU does not check, and an access past the TBuf's end reads or overwrites the next "
                              "buffer (an error here)", ascendc_emu::type_name<T>(), len,
                              (unsigned long long)(uint64_t(len) * sizeof(T)), (unsigned long long)slot_.bytes);
        }
        return LocalTensor<T>(reinterpret_cast<T *>(ascendc_emu::g_block.ub.data() + slot_.offset), len, &slot_, slot_.gen);
    }
    template <class T> LocalTensor<T> GetWithOffset(uint32_t size, uint32_t offset, ASCENDC_EMU_LOC) {
        if (offset + uint64_t(size) * sizeof(T) > slot_.bytes)
            ascendc_emu::fail(ascendc_emu::kError, loc, "TBuf::GetWithOffset past the end of the TBuf");
        return LocalTensor<T>(reinterpret_cast<T *>(ascendc_emu::g_block.ub.data() + slot_.offset + offset), size,
                              &slot_, slot_.gen);
    }
    void init(uint64_t bytes, uint64_t offset, const ascendc_emu::Loc &loc) {
        slot_.offset = offset;
        slot_.bytes = bytes;
        slot_.state = ascendc_emu::kScratch;
        slot_.owner = this;
        slot_.past_ub = offset + bytes > ascendc_emu::g_config.ub;
        slot_.init = loc;
        slot_.what = "a TBuf";
        ascendc_emu::register_slot(&slot_);
    }

private:
    ascendc_emu::Slot slot_;
};

class TPipe {
public:
    TPipe() { ascendc_emu::g_block.pipe = this; }
    ~TPipe() {
        if (ascendc_emu::g_block.pipe == this) ascendc_emu::g_block.pipe = nullptr;
    }
    TPipe(const TPipe &) = delete;
    TPipe &operator=(const TPipe &) = delete;

    template <class Q> bool InitBuffer(Q &que, uint8_t num, uint32_t len, ASCENDC_EMU_LOC) {
        static_assert(std::is_base_of_v<EmuQueue, Q>, "InitBuffer(queue, num, len) takes a TQue or TQueBind");
        if (num == 0) ascendc_emu::fail(ascendc_emu::kError, loc, "InitBuffer with 0 buffers");
        uint64_t bytes = (uint64_t(len) + 31) / 32 * 32;
        que.init(num, bytes, take(bytes * num), loc);
        return true;
    }
    template <TPosition p> bool InitBuffer(TBuf<p> &buf, uint32_t len, ASCENDC_EMU_LOC) {
        uint64_t bytes = (uint64_t(len) + 31) / 32 * 32;
        buf.init(bytes, take(bytes), loc);
        return true;
    }
    void Reset() { ascendc_emu::g_block.ub_used = 0; }
    void Destroy() { ascendc_emu::g_block.ub_used = 0; }
    template <HardEvent e> TEventID AllocEventID() { return static_cast<TEventID>(next_event_++ % 8); }
    template <HardEvent e> void ReleaseEventID(TEventID) {}
    TEventID FetchEventID(HardEvent) { return static_cast<TEventID>(next_event_++ % 8); }
    template <HardEvent e> TEventID FetchEventID() { return static_cast<TEventID>(next_event_++ % 8); }

private:
    // The NPU's InitBuffer hands out UB addresses without checking them against the capacity: a buffer past the
    // end is harmless until used (a kernel may size one for a dtype it never runs), and its first access faults
    // (Slot::past_ub). The offsets keep counting, as the NPU's do.
    static uint64_t take(uint64_t bytes) {
        ascendc_emu::Block &b = ascendc_emu::g_block;
        uint64_t at = b.ub_used;
        b.ub_used += bytes;
        return at;
    }
    uint32_t next_event_ = 0;
};

inline TPipe *GetTPipePtr() { return static_cast<TPipe *>(ascendc_emu::g_block.pipe); }

// the rest of the unified buffer after every InitBuffer so far, as a tensor (the documentation's "stack buffer")
template <class T, TPosition pos> inline bool PopStackBuffer(LocalTensor<T> &popLocal, ASCENDC_EMU_LOC) {
    static thread_local ascendc_emu::Slot slot;
    ascendc_emu::Block &b = ascendc_emu::g_block;
    uint64_t at = (b.ub_used + 31) / 32 * 32;
    if (at >= ascendc_emu::g_config.ub)
        ascendc_emu::fail(ascendc_emu::kError, loc, "PopStackBuffer: no unified buffer left (%llu bytes taken)",
                          (unsigned long long)b.ub_used);
    slot = ascendc_emu::Slot{};
    slot.offset = at;
    slot.bytes = ascendc_emu::g_config.ub - at;
    slot.state = ascendc_emu::kScratch;
    slot.owner = &slot;
    slot.what = "the stack buffer (PopStackBuffer)";
    slot.init = loc;
    ascendc_emu::register_slot(&slot);
    popLocal = LocalTensor<T>(reinterpret_cast<T *>(b.ub.data() + at), static_cast<uint32_t>(slot.bytes / sizeof(T)),
                              &slot, slot.gen);
    return true;
}

}  // namespace AscendC
