// ascendc-cpu: the launcher compiled after the candidate's kernel: it runs the kernel entry once per block (each
// with a fresh, poisoned UB), and the direct-launch function whose <<<>>> becomes launch_blocks; a fault ends the
// launch and comes back to Python as (kind, message). The C functions here are the library's interface.
//
// Blocks run concurrently, deterministically: each block of a multi-block launch runs on a thread of its own
// (a worker, reused once its block ends), and the threads take turns in block order: block 0 runs until it ends
// or reaches a SyncAll, then block 1, ..., so SyncAll is a real barrier (every block reaches it before any goes
// on) and an atomic copy is atomic, while the values are the same run to run. Between two SyncAlls (an epoch)
// each block's GM accesses through the API are recorded as byte ranges (base.h's gm_touch); at the epoch's end
// two blocks writing overlapping bytes without an atomic mode, or one reading bytes another writes (atomically
// or not), is a race error naming both blocks, the tensor, the bytes and both instructions. The verdict does not
// depend on the order the turns run in. A single-block launch runs on the caller's thread with nothing recorded.
#pragma once

#include <condition_variable>
#include <mutex>
#include <thread>

#include "ascendc_emu/base.h"

extern "C" {
struct AscendcEmuArg {
    void *p;
    int64_t i;
    double f;
};
}

namespace ascendc_emu {

inline void begin_block(uint32_t idx, uint32_t num) {
    Block &b = g_block;
    b.idx = idx;
    b.num = num;
    b.active = true;
    b.ub.assign(g_config.ub, 0xFF);  // undefined UB reads back as NaN
    b.ub_used = 0;
    b.pipe = nullptr;
    reset_pipes(b);
    b.slots.clear();
    b.syncs = 0;
    b.gm = nullptr;  // a multi-block launch's scheduler records this block's GM accesses
    b.sync_all = nullptr;
    b.atomic = 0;  // each core starts with plain GM writes
    b.atomic_type = nullptr;
    b.mask_counter = false;  // and the mask register in normal mode, all ones
    b.mask[0] = b.mask[1] = ~0ull;
    b.reduce_set = false;
    b.pad_set = false;
    b.acc = 0;
    b.deq_scale = 1.0f;
    b.sys_workspace = nullptr;
}

inline void check_blocks(uint32_t blocks, const Loc &loc) {
    if (blocks == 0) fail(kError, loc, "launch with a block dimension of 0: no block runs");
    if (blocks > 65535) fail(kError, loc, "launch with a block dimension of %u (at most 65535)", blocks);
}

// -- the blocks' turns -----------------------------------------------------------------------------------------

struct Abort {};  // thrown out of a waiting block's SyncAll when another block faulted: it unwinds and ends

class Scheduler {
public:
    Scheduler(uint32_t n, uint64_t tiling_key, void (*body)(void *), void *ctx)
        : n_(n), key_(tiling_key), body_(body), ctx_(ctx), status_(n, kNew), gm_(n), worker_of_(n, nullptr) {}
    ~Scheduler() { stop(); }

    void run() {
        for (uint32_t epoch = 0;; epoch++) {
            for (uint32_t b = 0; b < n_; b++) {
                if (status_[b] == kDone) continue;
                turn(b);
                if (faulted_) {
                    abort_waiting();
                    throw fault_;
                }
            }
            try {
                check_races(epoch);
            } catch (const Fault &) {
                abort_waiting();
                throw;
            }
            uint32_t done = 0, waiting = 0, first_done = n_, first_wait = n_;
            for (uint32_t b = 0; b < n_; b++) {
                if (status_[b] == kDone) done++, first_done = std::min(first_done, b);
                else waiting++, first_wait = std::min(first_wait, b);
            }
            if (waiting == 0) return;
            // A block that ended never reaches the SyncAll the others wait at. CANN's SyncAll reference gives the
            // reason a launch of more logical blocks than cores hangs: the blocks of the first round wait at
            // SyncAll for blocks that cannot start before they end ("否则框架进行多轮调度时会插入异常同步，导致
            // Kernel卡死"), so the sync waits for every block of the launch, and one that returned early is one
            // that never comes.
            if (done) {
                Fault f{kDeadlock, "SyncAll: block " + std::to_string(first_wait) + " waits at its SyncAll number " +
                                       std::to_string(epoch + 1) + " while block " + std::to_string(first_done) +
                                       " ended having passed " + std::to_string(epoch) +
                                       ": every block must reach each SyncAll; on the NPU this waits forever"};
                abort_waiting();
                throw f;
            }
        }
    }

    static void sync_all(const Loc &loc);  // a block's SyncAll: its turn passes

private:
    enum Status { kNew, kRunning, kWaiting, kDone };
    struct Worker {
        std::thread thread;
        Block state;       // the block state this worker's block runs with (swapped into g_block for its turn)
        int block = -1;    // the block it runs, -1 idle
    };

    // block b runs until it ends or reaches a SyncAll; the caller waits
    void turn(uint32_t b) {
        std::unique_lock<std::mutex> lk(m_);
        if (status_[b] == kNew) {
            Worker *w = nullptr;
            for (auto &x : workers_)
                if (x->block < 0) w = x.get();
            if (w == nullptr) {
                workers_.push_back(std::make_unique<Worker>());
                w = workers_.back().get();
                w->block = int(b);
                w->thread = std::thread([this, w] { work(w); });
            }
            w->block = int(b);
            worker_of_[b] = w;
        }
        status_[b] = kRunning;
        running_ = int(b);
        cv_.notify_all();
        cv_.wait(lk, [&] { return running_ < 0; });
    }

    void work(Worker *w) {
        std::unique_lock<std::mutex> lk(m_);
        for (;;) {
            cv_.wait(lk, [&] { return quit_ || (w->block >= 0 && running_ == w->block); });
            if (quit_) return;
            uint32_t b = uint32_t(w->block);
            lk.unlock();
            std::swap(g_block, w->state);
            begin_block(b, n_);
            g_block.tiling_key = key_;
            g_block.gm = &gm_[b];
            g_block.sync_all = &Scheduler::sync_all;
            g_current = this;
            const char *what = nullptr;
            Fault fault{kOk, ""};
            try {
                body_(ctx_);
            } catch (const Fault &e) {
                fault = e;
            } catch (const Abort &) {
            } catch (const std::bad_alloc &) {
                what = "out of memory inside the kernel";
            } catch (const std::exception &e) {
                fault = Fault{kError, std::string("C++ exception: ") + e.what()};
            } catch (...) {
                what = "an exception that is not a std::exception";
            }
            if (what != nullptr) fault = Fault{kError, what};
            g_block.active = false;
            g_block.gm = nullptr;
            g_block.sync_all = nullptr;
            std::swap(g_block, w->state);
            lk.lock();
            if (fault.kind != kOk && !faulted_) {
                faulted_ = true;
                fault_ = fault;
            }
            status_[b] = kDone;
            w->block = -1;
            running_ = -1;
            cv_.notify_all();
        }
    }

    // in block b's thread: hand the turn back and wait for the next one. The block's state waits in its worker
    // (g_block holds the caller's own state whenever no block runs)
    void wait_turn() {
        uint32_t b = g_block.idx;
        Worker *w = worker_of_[b];
        std::swap(g_block, w->state);
        std::unique_lock<std::mutex> lk(m_);
        status_[b] = kWaiting;
        running_ = -1;
        cv_.notify_all();
        cv_.wait(lk, [&] { return running_ == int(b); });
        bool stop = aborting_;
        lk.unlock();
        std::swap(g_block, w->state);
        if (stop) throw Abort{};
    }

    // a block faulted: the blocks waiting at a SyncAll unwind, one at a time (each in its own turn)
    void abort_waiting() {
        aborting_ = true;
        for (uint32_t b = 0; b < n_; b++)
            if (status_[b] == kWaiting) turn(b);
    }

    void stop() {
        {
            std::lock_guard<std::mutex> lk(m_);
            quit_ = true;
        }
        cv_.notify_all();
        for (auto &w : workers_)
            if (w->thread.joinable()) w->thread.join();
        workers_.clear();
    }

    // the race check of one epoch: every block's GM ranges, the lowest conflicting bytes reported
    void check_races(uint32_t epoch) {
        struct Item {
            GmAcc a;
            uint32_t block;
        };
        std::vector<Item> all;
        for (uint32_t b = 0; b < n_; b++) {
            gm_compact(gm_[b]);
            for (const GmAcc &a : gm_[b]) all.push_back(Item{a, b});
            gm_[b].clear();
        }
        std::sort(all.begin(), all.end(), [](const Item &x, const Item &y) {
            return x.a.lo != y.a.lo ? x.a.lo < y.a.lo : x.block < y.block;
        });
        std::vector<const Item *> open;  // ranges still open at the sweep's position
        const Item *best[2] = {nullptr, nullptr};
        uintptr_t best_lo = 0;
        for (const Item &it : all) {
            size_t keep = 0;
            for (const Item *o : open)
                if (o->a.hi > it.a.lo) open[keep++] = o;
            open.resize(keep);
            for (const Item *o : open) {
                if (o->block == it.block) continue;
                bool conflict = o->a.kind == kGmWrite || it.a.kind == kGmWrite ||
                                (o->a.kind == kGmAtomic) != (it.a.kind == kGmAtomic);
                // the same bytes written to the same range by both: GM holds them in any order
                if (o->a.same && it.a.same && o->a.lo == it.a.lo && o->a.hi == it.a.hi && o->a.fp == it.a.fp)
                    conflict = false;
                if (!conflict) continue;
                uintptr_t lo = std::max(o->a.lo, it.a.lo);
                if (best[0] == nullptr || lo < best_lo) {
                    best[0] = o->block < it.block ? o : &it;
                    best[1] = o->block < it.block ? &it : o;
                    best_lo = lo;
                }
            }
            if (best[0] != nullptr && it.a.lo > best_lo) break;  // nothing later starts lower
            open.push_back(&it);
        }
        if (best[0] != nullptr) race(*best[0], *best[1], epoch);
    }

    template <class Item> [[noreturn]] void race(const Item &x, const Item &y, uint32_t epoch) {
        uintptr_t lo = std::max(x.a.lo, y.a.lo), hi = std::min(x.a.hi, y.a.hi);
        const GmRegion *r = nullptr;
        for (const GmRegion &g : g_gm)
            if (lo >= g.lo && lo < g.hi + 32) r = &g;
        auto verb = [](int k) { return k == kGmWrite ? "writes" : k == kGmAtomic ? "adds atomically to" : "reads"; };
        std::string when = n_syncs(epoch);
        char buf[1024];
        std::snprintf(buf, sizeof buf,
                      "GM race between blocks %u and %u: block %u %s bytes [%lld, %lld) of %s (%s at %s:%d) and block "
                      "%u %s them (%s at %s:%d) %s%s: blocks run concurrently on the NPU, so the result depends on "
                      "their timing",
                      x.block, y.block, x.block, verb(x.a.kind), (long long)(lo - (r ? r->lo : 0)),
                      (long long)(hi - (r ? r->lo : 0)), r ? r->name.c_str() : "GM", x.a.api,
                      x.a.file ? x.a.file : "?", x.a.line, y.block, verb(y.a.kind), y.a.api, y.a.file ? y.a.file : "?",
                      y.a.line, when.c_str(),
                      x.a.kind != kGmRead && y.a.kind != kGmRead ? ", with no atomic mode (SetAtomicAdd) on both"
                                                                 : ", with no SyncAll between them");
        throw Fault{kError, buf};
    }

    static std::string n_syncs(uint32_t epoch) {
        return epoch == 0 ? "before any SyncAll" : "after SyncAll number " + std::to_string(epoch);
    }

    uint32_t n_;
    uint64_t key_;
    void (*body_)(void *);
    void *ctx_;
    std::vector<int> status_;
    std::vector<std::vector<GmAcc>> gm_;
    std::vector<std::unique_ptr<Worker>> workers_;
    std::vector<Worker *> worker_of_;
    std::mutex m_;
    std::condition_variable cv_;
    int running_ = -1;  // the block whose turn it is; -1: the scheduler's
    bool quit_ = false, aborting_ = false, faulted_ = false;
    Fault fault_{kOk, ""};

public:
    static inline Scheduler *g_current = nullptr;
};

inline void Scheduler::sync_all(const Loc &) { g_current->wait_turn(); }

// every block of a launch: on the caller's thread for one block, in turns on threads for more
template <class F> void run_blocks(uint32_t blocks, uint64_t tiling_key, F &&f) {
    if (blocks == 1) {
        begin_block(0, 1);
        g_block.tiling_key = tiling_key;
        f();
        g_block.active = false;
        return;
    }
    auto body = [](void *ctx) { (*static_cast<std::remove_reference_t<F> *>(ctx))(); };
    Scheduler s(blocks, tiling_key, body, const_cast<void *>(static_cast<const void *>(&f)));
    Scheduler *outer = Scheduler::g_current;
    try {
        s.run();
    } catch (...) {
        Scheduler::g_current = outer;
        throw;
    }
    Scheduler::g_current = outer;
}

// `kernel<<<blocks, l2ctrl, stream>>>(args...)` in a direct launch
template <class... P, class... A> void launch_blocks(uint32_t blocks, void (*kernel)(P...), A &&...args) {
    if (g_block.active) fail(kError, Loc{nullptr, 0}, "a kernel launched from inside a kernel");
    check_blocks(blocks, Loc{nullptr, 0});
    run_blocks(blocks, 0, [&] { kernel(static_cast<P>(args)...); });
}

template <class P> P from_arg(const AscendcEmuArg &a) {
    if constexpr (std::is_pointer_v<P>) return reinterpret_cast<P>(a.p);
    else if constexpr (std::is_floating_point_v<P>) return static_cast<P>(a.f);
    else if constexpr (std::is_enum_v<P>) return static_cast<P>(a.i);
    else return static_cast<P>(a.i);
}

template <class F> int guarded(F f) {
    g_error.clear();
    try {
        f();
        return kOk;
    } catch (const Fault &e) {
        g_error = e.message;
        g_block.active = false;
        return e.kind;
    } catch (const std::bad_alloc &) {
        g_error = "out of memory inside the kernel";
    } catch (const std::exception &e) {
        g_error = std::string("C++ exception: ") + e.what();
    } catch (...) {
        g_error = "an exception that is not a std::exception";
    }
    g_block.active = false;
    return kError;
}

template <class R, class... P, size_t... I>
void call(R (*f)(P...), const AscendcEmuArg *a, std::index_sequence<I...>) {
    f(from_arg<P>(a[I])...);
}

// an msopgen kernel entry: every block runs it with the same GM addresses
template <class... P> int run_entry(void (*kernel)(P...), const AscendcEmuArg *args, int nargs, uint32_t blocks,
                                    uint64_t tiling_key) {
    return guarded([&] {
        if (nargs != int(sizeof...(P)))
            fail(kError, Loc{nullptr, 0}, "the kernel entry takes %d parameters, the launch has %d", int(sizeof...(P)), nargs);
        check_blocks(blocks, Loc{nullptr, 0});
        // msopgen's entry takes (..., workspace, tiling): the framework sets each block's system workspace from it
        uint8_t *sys_ws = nargs >= 2 ? static_cast<uint8_t *>(args[nargs - 2].p) : nullptr;
        run_blocks(blocks, tiling_key, [&] {
            g_block.sys_workspace = sys_ws;
            call(kernel, args, std::index_sequence_for<P...>{});
        });
    });
}

// a direct launch's host function (it computes its tiling and launches with <<<>>>)
template <class R, class... P> int run_launch(R (*fn)(P...), const AscendcEmuArg *args, int nargs) {
    return guarded([&] {
        if (nargs != int(sizeof...(P)))
            fail(kError, Loc{nullptr, 0}, "the launch function takes %d parameters, the binding passes %d",
                 int(sizeof...(P)), nargs);
        call(fn, args, std::index_sequence_for<P...>{});
    });
}

template <class R, class... P> constexpr int arity(R (*)(P...)) { return sizeof...(P); }

}  // namespace ascendc_emu
