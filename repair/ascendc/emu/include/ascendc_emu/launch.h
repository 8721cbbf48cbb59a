// ascendc-cpu: the launcher compiled after the candidate's kernel: it runs the kernel entry once per block (each
// with a fresh, poisoned UB), and the direct-launch function whose <<<>>> becomes launch_blocks; a fault ends the
// launch and comes back to Python as (kind, message). The C functions here are the library's interface.
#pragma once

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
    std::memset(b.flags, 0, sizeof b.flags);
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

// `kernel<<<blocks, l2ctrl, stream>>>(args...)` in a direct launch
template <class... P, class... A> void launch_blocks(uint32_t blocks, void (*kernel)(P...), A &&...args) {
    if (g_block.active) fail(kError, Loc{nullptr, 0}, "a kernel launched from inside a kernel");
    check_blocks(blocks, Loc{nullptr, 0});
    for (uint32_t b = 0; b < blocks; b++) {
        begin_block(b, blocks);
        kernel(static_cast<P>(args)...);
        g_block.active = false;
    }
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
        for (uint32_t b = 0; b < blocks; b++) {
            begin_block(b, blocks);
            g_block.tiling_key = tiling_key;
            // msopgen's entry takes (..., workspace, tiling): the framework sets the system workspace from it
            g_block.sys_workspace = nargs >= 2 ? static_cast<uint8_t *>(args[nargs - 2].p) : nullptr;
            call(kernel, args, std::index_sequence_for<P...>{});
            g_block.active = false;
        }
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
