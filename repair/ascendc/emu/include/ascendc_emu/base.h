// ascendc-cpu: the state every part of the emulation shares, and how a fault is reported.
//
// Written for the emulator from the public AscendC documentation; no CANN header or source is copied.
// One kernel runs at a time in a process. Its blocks run as concurrent threads that take turns in block order
// (launch.h), each with a unified buffer (UB) of its own: g_block is the running block's state, swapped in and
// out when the turn passes at a SyncAll, so one block's code never sees another's (and a single-block kernel
// runs on the caller's thread as before). A fault (a UB overflow, a misaligned copy, an access outside every
// GM tensor, a queue that would wait forever, a race) throws ascendc_emu::Fault, which the launcher turns into
// the case's status.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdarg>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

// AscendC's qualifiers mean nothing on the CPU.
#define __aicore__
#define __global__
#define __gm__
#define __ubuf__
#ifndef GM_ADDR
#define GM_ADDR uint8_t *
#endif

using half = _Float16;  // IEEE binary16: arithmetic rounds each result to half, as the vector unit does

// bfloat16 in software: the top 16 bits of a float, rounded to nearest even.
struct bfloat16_t {
    uint16_t bits = 0;
    bfloat16_t() = default;
    bfloat16_t(float f) : bits(from_float(f)) {}  // NOLINT: converts like a number
    bfloat16_t(double d) : bits(from_float(static_cast<float>(d))) {}
    bfloat16_t(int v) : bits(from_float(static_cast<float>(v))) {}
    operator float() const {
        uint32_t u = static_cast<uint32_t>(bits) << 16;
        float f;
        std::memcpy(&f, &u, 4);
        return f;
    }
    static bfloat16_t from_bits(uint16_t b) {
        bfloat16_t r;
        r.bits = b;
        return r;
    }
    static uint16_t from_float(float f) {
        uint32_t u;
        std::memcpy(&u, &f, 4);
        if ((u & 0x7fffffffu) > 0x7f800000u) return static_cast<uint16_t>((u >> 16) | 0x40);  // NaN stays NaN
        u += 0x7fffu + ((u >> 16) & 1u);
        return static_cast<uint16_t>(u >> 16);
    }
};

using float16_t = half;  // the spellings kernels use beside half and float
using float32_t = float;

namespace ascendc_emu {

// Where an API was called from: the candidate's file and line (the build writes #line directives).
struct Loc {
    const char *file;
    int line;
    static Loc here(const char *f = __builtin_FILE(), int l = __builtin_LINE()) { return Loc{f, l}; }
};
#define ASCENDC_EMU_LOC ::ascendc_emu::Loc loc = ::ascendc_emu::Loc::here()

// What a fault means for the case: an error, a crash (memory outside every tensor), a hang (a deadlock).
enum FaultKind : int { kOk = 0, kError = 1, kCrash = 2, kDeadlock = 3 };

struct Fault {
    int kind;
    std::string message;
};

struct Config {
    uint32_t aiv = 40;           // vector cores (GetCoreNumAiv)
    uint32_t aic = 20;           // cube cores (GetCoreNumAic)
    uint64_t ub = 192 * 1024;    // unified buffer bytes per core
    uint64_t sys_workspace = 16 * 1024 * 1024;  // GetLibApiWorkSpaceSize
    // the BiSheng compiler's --cce-auto-sync, on by default in a custom operator project (the documentation of
    // its compile options): the compiler inserts the SetFlag/WaitFlag a dependency between two pipes needs, so an
    // unordered hand-over is no race there. Off (a kernel built with --cce-auto-sync=off), tensor.h reports it.
    bool auto_sync = true;
};
inline Config g_config;

// The pipes of an AI core that the vector API uses. Each runs its instructions in order; between two of them
// only a queue (EnQue/DeQue, AllocTensor/FreeTensor), a SetFlag/WaitFlag pair or a PipeBarrier<PIPE_ALL> orders
// anything (pipe model: tensor.h's ub_access, pipe.h's release/acquire).
enum PipeId : int { kPipeNone = -1, kPipeS = 0, kPipeV = 1, kPipeMTE2 = 2, kPipeMTE3 = 3, kPipes = 4 };
inline const char *pipe_name(int p) {
    static const char *names[] = {"S", "V", "MTE2", "MTE3"};
    return p >= 0 && p < kPipes ? names[p] : "?";
}
inline const char *pipe_words(int p) {
    static const char *words[] = {"scalar pipe", "vector pipe", "MTE2 pipe (GM -> UB)", "MTE3 pipe (UB -> GM)"};
    return p >= 0 && p < kPipes ? words[p] : "?";
}
// A vector clock of the pipes: clock[p] is the latest epoch of pipe p whose results are visible. Epochs are
// numbers from one counter (g_epoch) that only grows, so an epoch of an earlier block or launch is below every
// clock of a later one.
struct Clock {
    uint32_t c[kPipes] = {};
};
inline uint32_t g_epoch = 0;

// A SetFlag not yet waited for: its HardEvent (or set_flag pipe pair) key, event id, and the source pipe's clock.
struct PendingFlag {
    int key, id;
    Clock token;
};

// A GM access recorded for the race check between blocks (launch.h): bytes [lo, hi), read, written or combined
// atomically, and where. A plain write keeps a fingerprint of the bytes it wrote (same = true): two blocks writing
// the same bytes to the same range leave GM holding them whatever their order (a common "every block zeroes the
// output before the SyncAll" idiom, or every block writing one shared result), so that is no race. The fingerprint
// is a sum over the bytes, each weighted by its GM address, so writes that tile a range sum to the range's whatever
// their sizes and order; a write over bytes the block already wrote (not the same bytes again) keeps none.
enum GmKind : int { kGmRead = 0, kGmWrite = 1, kGmAtomic = 2 };
struct GmAcc {
    uintptr_t lo, hi;
    int kind;
    const char *api, *file;
    int line;
    uint64_t fp = 0;
    bool same = false;
};

// The sum, over the 8-byte GM words a write stores into, of w(word's address) * the bytes it stores there as a 64-bit
// little-endian number (bytes it leaves out as 0): the bytes of a word written in pieces add up to the word's, so the
// sum is additive over any tiling of a range; w is odd (splitmix64 of the address, low bit set), so a change in one
// word always changes the sum. One multiply per word: a few times cheaper than the copy's own loop over elements
inline uint64_t gm_fingerprint(uintptr_t dst, const void *src, uint64_t bytes) {
    const uint8_t *s = static_cast<const uint8_t *>(src);
    uint64_t h = 0;
    for (uint64_t i = 0; i < bytes;) {
        uintptr_t a = dst + i, off = a & 7;
        uint64_t n = std::min<uint64_t>(8 - off, bytes - i), v = 0;
        if (n == 8 && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__)
            std::memcpy(&v, s + i, 8);
        else
            for (uint64_t j = 0; j < n; j++) v |= uint64_t(s[i + j]) << (8 * (off + j));
        uint64_t w = uint64_t(a - off) + 0x9e3779b97f4a7c15ull;
        w = (w ^ (w >> 30)) * 0xbf58476d1ce4e5b9ull;
        w = (w ^ (w >> 27)) * 0x94d049bb133111ebull;
        h += ((w ^ (w >> 31)) | 1) * v;
        i += n;
    }
    return h;
}

// `o` grown by the record `n` of the same kind it touches: the bytes of both, each fingerprint kept where the two
// tile the range (their sums add) or are the same bytes at the same range again
inline void gm_merge(GmAcc &o, const GmAcc &n) {
    bool both = o.same && n.same;
    if (both && (n.lo == o.hi || n.hi == o.lo))
        o.fp += n.fp;
    else if (!(both && n.lo == o.lo && n.hi == o.hi && n.fp == o.fp))
        o.same = false;
    o.lo = std::min(o.lo, n.lo);
    o.hi = std::max(o.hi, n.hi);
}

struct Slot;  // a UB buffer of a queue or TBuf (tensor.h)

struct Block {
    uint32_t idx = 0, num = 1;
    bool active = false;         // inside a kernel launch
    std::vector<uint8_t> ub;     // this block's unified buffer
    uint64_t ub_used = 0;
    void *pipe = nullptr;        // the TPipe the kernel constructed (GetTPipePtr)
    std::vector<PendingFlag> flags;  // SetFlags not yet waited for, in order
    std::vector<Slot *> slots;   // the UB buffers of this block's queues and TBufs, for raw UB addresses (ub_at)
    int pipe_now = kPipeV;       // the pipe of the instruction running (ASCENDC_EMU_PIPE; vector unless declared)
    Clock vc[kPipes];            // what each pipe has seen of the others (vc[q].c[p]: pipe p's epochs up to it)
    std::vector<GmAcc> *gm = nullptr;  // this block's GM accesses since the last SyncAll (none for one block)
    void (*sync_all)(const Loc &) = nullptr;  // SyncAll across blocks (launch.h's scheduler)
    uint32_t syncs = 0;          // SyncAlls this block has passed
    uint64_t tiling_key = 0;
    int atomic = 0;              // how UB -> GM copies write: 0 plainly, 1 adding, 2 max, 3 min (SetAtomicAdd...)
    const char *atomic_type = nullptr;  // the type SetAtomicAdd<T> named
    // the vector mask register: normal mode, one bit per element of a repeat (mask[0] the low 64); counter mode
    // (SetMaskCount), mask[0] a count of elements across the repeats
    bool mask_counter = false;
    uint64_t mask[2] = {~0ull, ~0ull};
    // the last WholeReduceMax/Min's best value and its index, as bits (GetReduceMaxMinCount)
    bool reduce_set = false;
    uint64_t reduce_value = 0, reduce_index = 0;
    size_t reduce_size = 0;
    // SetPadValue's value for DataCopyPad (bits, its type's size); the CCE accumulator (vcadd into nullptr)
    bool pad_set = false;
    size_t pad_size = 0;
    uint64_t pad_value = 0;
    uint64_t acc = 0;
    // SetDeqScale's scale for Cast from int32_t to half
    float deq_scale = 1.0f;
    uint8_t *sys_workspace = nullptr;  // SetSysWorkspace's
};
inline Block g_block;

// -- the pipe model's clocks ---------------------------------------------------------------------------------

inline uint32_t next_epoch() { return ++g_epoch; }

// A block's pipes at its start: each in an epoch of its own, having seen everything before the block.
inline void reset_pipes(Block &b) {
    uint32_t e = next_epoch();
    for (int q = 0; q < kPipes; q++)
        for (int p = 0; p < kPipes; p++) b.vc[q].c[p] = e - 1;
    for (int p = 0; p < kPipes; p++) b.vc[p].c[p] = e;
    b.flags.clear();
    b.pipe_now = kPipeV;
}

// Pipe p makes what it did so far visible (SetFlag, EnQue, FreeTensor): the token, then a new epoch for p.
inline Clock release(int p) {
    Clock t;
    if (p < 0 || p >= kPipes) {  // a pipe not modelled (cube, FIX): everything visible, as far as this knows
        for (int i = 0; i < kPipes; i++) t.c[i] = g_epoch;
        return t;
    }
    t = g_block.vc[p];
    g_block.vc[p].c[p] = next_epoch();
    return t;
}

// Pipe q waits for a token (WaitFlag, DeQue, AllocTensor): what it saw becomes visible to q.
inline void acquire(int q, const Clock &t) {
    if (q < 0 || q >= kPipes) return;
    for (int i = 0; i < kPipes; i++)
        if (t.c[i] > g_block.vc[q].c[i]) g_block.vc[q].c[i] = t.c[i];
}

// PipeBarrier<PIPE_ALL> (and SyncAll): every pipe waits for every other.
inline void barrier_all() {
    Clock j;
    for (int q = 0; q < kPipes; q++)
        for (int i = 0; i < kPipes; i++) j.c[i] = std::max(j.c[i], g_block.vc[q].c[i]);
    for (int q = 0; q < kPipes; q++) g_block.vc[q] = j;
    for (int q = 0; q < kPipes; q++) g_block.vc[q].c[q] = next_epoch();
}

// The pipe of the API running, for as long as it runs: `ASCENDC_EMU_PIPE(kPipeMTE2);` first in an API that is
// not a vector instruction (copies, scalar accesses). Every UB operand it touches is then recorded as that
// pipe's (tensor.h's ub_access).
struct PipeScope {
    int saved;
    explicit PipeScope(int p) : saved(g_block.pipe_now) { g_block.pipe_now = p; }
    ~PipeScope() { g_block.pipe_now = saved; }
    PipeScope(const PipeScope &) = delete;
    PipeScope &operator=(const PipeScope &) = delete;
};
#define ASCENDC_EMU_PIPE(p) ::ascendc_emu::PipeScope ascendc_emu_pipe_scope_(::ascendc_emu::p)

// what a count-form instruction leaves in the mask register: normal mode, all ones (it runs in counter mode)
inline void count_form_mask() {
    g_block.mask_counter = false;
    g_block.mask[0] = g_block.mask[1] = ~0ull;
}
inline std::string g_error;  // the last fault's message, for ascendc_emu_error()

[[gnu::format(printf, 3, 4)]] [[noreturn]] inline void fail(int kind, const Loc &loc, const char *fmt, ...) {
    char buf[1024];
    va_list ap;
    va_start(ap, fmt);
    std::vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    // what went wrong first (a table shows a line's start), then the block and the candidate's file and line
    std::string block = g_block.active ? "block " + std::to_string(g_block.idx) + " of " + std::to_string(g_block.num)
                                       : "";
    std::string where = loc.file ? std::string(loc.file) + ":" + std::to_string(loc.line) : "";
    std::string at = block.empty() || where.empty() ? block + where : block + ", " + where;
    throw Fault{kind, std::string(buf) + (at.empty() ? "" : " [" + at + "]")};
}

// What the NPU does without complaint but a kernel rarely means (a DataCopy length rounded down to whole 32-byte
// blocks): a note for the case's result, once per call site and kind, the launch going on. The repair loop and the
// user read them beside the numbers.
inline std::vector<std::string> g_notes;
constexpr size_t kMaxNotes = 16;

[[gnu::format(printf, 3, 4)]] inline void note(const char *kind, const Loc &loc, const char *fmt, ...) {
    std::string where = loc.file ? std::string(loc.file) + ":" + std::to_string(loc.line) : "";
    std::string key = std::string(kind) + "@" + where;
    for (const std::string &n : g_notes)
        if (n.compare(0, key.size() + 1, key + "\t") == 0) return;
    if (g_notes.size() >= kMaxNotes) return;
    char buf[1024];
    va_list ap;
    va_start(ap, fmt);
    std::vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    g_notes.push_back(key + "\t" + buf + (where.empty() ? "" : " [" + where + "]"));
}

// -- global memory: the tensors of the launch, each with a poisoned guard region on either side ----------

struct GmRegion {
    uintptr_t lo, hi;
    std::string name;
};
inline std::vector<GmRegion> g_gm;

inline void gm_check(const void *p, uint64_t bytes, bool write, const char *api, const Loc &loc) {
    if (bytes == 0) return;
    uintptr_t lo = reinterpret_cast<uintptr_t>(p), hi = lo + bytes;
    const GmRegion *near = nullptr;
    for (const GmRegion &r : g_gm) {
        if (lo >= r.lo && hi <= r.hi) return;
        // GM is allocated in whole 32-byte blocks on the NPU: a read of the last one's tail is no fault (what it
        // reads there is undefined: the guard's poison here); a write there still is
        if (!write && lo >= r.lo && hi <= r.lo + (r.hi - r.lo + 31) / 32 * 32) return;
        if (r.lo <= lo && (near == nullptr || r.lo > near->lo)) near = &r;
    }
    if (near != nullptr && lo < near->hi + (1u << 20)) {
        fail(kCrash, loc, "%s %s bytes [%lld, %lld) of GM tensor %s, which holds %llu bytes", api,
             write ? "writes" : "reads", (long long)(lo - near->lo), (long long)(hi - near->lo), near->name.c_str(),
             (unsigned long long)(near->hi - near->lo));
    }
    fail(kCrash, loc, "%s %s %llu bytes at GM address %p, outside every GM tensor of the launch", api,
         write ? "writes" : "reads", (unsigned long long)bytes, p);
}

// A GM access of a block of a multi-block launch, for the race check between blocks at the next SyncAll or the
// launch's end (launch.h). Contiguous accesses of one kind merge, so a loop over a tensor stays one range.
inline void gm_compact(std::vector<GmAcc> &rec) {
    std::sort(rec.begin(), rec.end(), [](const GmAcc &a, const GmAcc &b) {
        return a.kind != b.kind ? a.kind < b.kind : a.lo < b.lo;
    });
    size_t out = 0;
    for (size_t i = 0; i < rec.size(); i++) {
        if (out && rec[out - 1].kind == rec[i].kind && rec[i].lo <= rec[out - 1].hi)
            gm_merge(rec[out - 1], rec[i]);
        else
            rec[out++] = rec[i];
    }
    rec.resize(out);
}

// `src`, for a plain write: the bytes it stores (fingerprinted).
inline void gm_touch(const void *p, uint64_t bytes, int kind, const char *api, const Loc &loc,
                     const void *src = nullptr) {
    std::vector<GmAcc> *rec = g_block.gm;
    if (rec == nullptr || bytes == 0) return;
    uintptr_t lo = reinterpret_cast<uintptr_t>(p), hi = lo + bytes;
    bool same = src != nullptr && kind == kGmWrite;
    GmAcc acc{lo, hi, kind, api, loc.file, loc.line, same ? gm_fingerprint(lo, src, bytes) : 0, same};
    if (!rec->empty()) {
        GmAcc &last = rec->back();
        if (last.kind == kind && lo <= last.hi && hi >= last.lo) {
            gm_merge(last, acc);
            return;
        }
    }
    rec->push_back(acc);
    if (rec->size() >= (1u << 16)) gm_compact(*rec);
}

// A read from GM into UB through the copy engines: from a tensor of the launch, the bytes past its end undefined
// (on the NPU they are the allocation's padding or another allocation's data: never a fault, rarely meant), poison
// here, with a note once they pass the tensor's last 32-byte block; so is a read that starts within 1 MB past a
// tensor's end. A read anywhere else faults.
inline void gm_fetch(uint8_t *dst, const uint8_t *src, uint64_t bytes, const char *api, const Loc &loc) {
    if (bytes == 0) return;
    uintptr_t lo = reinterpret_cast<uintptr_t>(src);
    const GmRegion *in = nullptr;
    for (const GmRegion &r : g_gm) {
        if (lo >= r.lo && lo < r.hi) {
            in = &r;
            break;
        }
        if (lo >= r.hi && lo < r.hi + (1u << 20) && (in == nullptr || r.hi > in->hi)) in = &r;
    }
    if (in != nullptr) {
        const GmRegion &r = *in;
        uint64_t inside = lo < r.hi ? std::min<uint64_t>(bytes, r.hi - lo) : 0;
        if (inside) {
            gm_touch(src, inside, kGmRead, api, loc);
            std::memcpy(dst, src, inside);
        }
        if (inside < bytes) {
            std::memset(dst + inside, 0xFF, bytes - inside);  // NaN as float and half, -1 as integers
            uint64_t tail = (r.hi - r.lo + 31) / 32 * 32;
            if (lo + bytes > r.lo + tail)
                note("gm-read-past-end", loc, "%s reads GM bytes [%llu, %llu) of %s, which holds %llu: the bytes past "
                     "its end are undefined on the NPU (NaN here)", api, (unsigned long long)(lo - r.lo),
                     (unsigned long long)(lo - r.lo + bytes), r.name.c_str(), (unsigned long long)(r.hi - r.lo));
        }
        return;
    }
    gm_check(src, bytes, false, api, loc);  // far from every tensor: the fault, with its message
    gm_touch(src, bytes, kGmRead, api, loc);
    std::memcpy(dst, src, bytes);
}

// -- numbers: half and bfloat16 compute in float and round back, as the vector unit's results do ------------

template <class T> struct Calc { using type = T; };
template <> struct Calc<half> { using type = float; };
template <> struct Calc<bfloat16_t> { using type = float; };
template <class T> using calc_t = typename Calc<T>::type;

template <class T> inline calc_t<T> up(T v) { return static_cast<calc_t<T>>(v); }
template <class T> inline T down(calc_t<T> v) { return static_cast<T>(v); }

template <class T> struct Identity { using type = T; };  // keeps a scalar argument from deducing T

template <class T> constexpr const char *type_name() {
    if constexpr (std::is_same_v<T, float>) return "float";
    else if constexpr (std::is_same_v<T, half>) return "half";
    else if constexpr (std::is_same_v<T, bfloat16_t>) return "bfloat16_t";
    else if constexpr (std::is_same_v<T, int32_t>) return "int32_t";
    else if constexpr (std::is_same_v<T, uint32_t>) return "uint32_t";
    else if constexpr (std::is_same_v<T, int16_t>) return "int16_t";
    else if constexpr (std::is_same_v<T, uint16_t>) return "uint16_t";
    else if constexpr (std::is_same_v<T, int8_t>) return "int8_t";
    else if constexpr (std::is_same_v<T, uint8_t>) return "uint8_t";
    else if constexpr (std::is_same_v<T, int64_t>) return "int64_t";
    else return "T";
}

}  // namespace ascendc_emu
