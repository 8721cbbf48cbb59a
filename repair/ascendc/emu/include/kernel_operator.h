// ascendc-cpu: the AscendC kernel API (vector subset) for g++, written from the public AscendC documentation.
#pragma once

// the compiler's macros of the vector core of the Atlas A2 (910B, dav-c220) this emulates: kernels choose their
// 910B code paths by them (`#if __CCE_AICORE__ == 220`)
#ifndef __CCE_AICORE__
#define __CCE_AICORE__ 220
#endif
#ifndef __NPU_ARCH__
#define __NPU_ARCH__ 2201
#endif
#ifndef __DAV_C220_VEC__
#define __DAV_C220_VEC__ 1
#endif

#include "ascendc_emu/base.h"
#include "ascendc_emu/tensor.h"
#include "ascendc_emu/pipe.h"
#include "ascendc_emu/copy.h"
#include "ascendc_emu/vector.h"
#include "ascendc_emu/reduce.h"
#include "ascendc_emu/level0.h"
#include "ascendc_emu/level0_data.h"
#include "ascendc_emu/mathlib.h"
#include "ascendc_emu/gather.h"
#include "ascendc_emu/cce.h"
#include "ascendc_emu/highlevel.h"
#include "ascendc_emu/expr.h"
#include "ascendc_emu/tiling_data.h"
#include "ascendc_emu/launch.h"

namespace AscendC {

constexpr uint32_t ONE_BLK_SIZE = 32;
constexpr uint32_t ONE_REPEAT_BYTE_SIZE = 256;
constexpr uint32_t DEFAULT_BLK_NUM = 8;
constexpr uint32_t MAX_REPEAT_TIMES = 255;
constexpr uint32_t BLOCK_CUBE = 16;

template <class T, class U> struct IsSameType {  // AscendC's std::is_same
    static constexpr bool value = std::is_same_v<T, U>;
};

template <class T> __aicore__ inline T DivCeil(T a, T b) { return (a + b - 1) / b; }
// not a template: a kernel's own `template <class T> T AlignUp(T, T)` called as AlignUp<uint32_t>(...) stays its own
__aicore__ inline uint64_t AlignUp(uint64_t a, uint64_t b) { return b == 0 ? a : (a + b - 1) / b * b; }

// a scalar of any AscendC number type as float, and a float as bfloat16_t (rounded to nearest even)
template <class T> __aicore__ inline float ToFloat(const T &v) { return static_cast<float>(v); }
__aicore__ inline bfloat16_t ToBfloat16(float v) { return bfloat16_t(v); }

inline GM_ADDR GetUserWorkspace(GM_ADDR workspace) {
    return workspace == nullptr ? nullptr : workspace + ascendc_emu::g_config.sys_workspace;
}
// the system workspace (the first GetLibApiWorkSpaceSize bytes of the launch's workspace, which the high-level APIs
// may use): the launch's workspace, or what the kernel gave SetSysWorkspace (the emulated APIs use none of it)
inline GM_ADDR GetSysWorkSpacePtr() { return ascendc_emu::g_block.sys_workspace; }
inline void SetSysWorkspace(GM_ADDR workspace) { ascendc_emu::g_block.sys_workspace = workspace; }

enum CoreType { AIC = 0, AIV = 1, MIX = 2 };
constexpr CoreType g_coreType = AIV;  // every block runs on a vector core here

template <class... A> inline void printf(const char *fmt, A... args) {
    std::fprintf(stderr, fmt, args...);
}
template <class T> inline void DumpTensor(const LocalTensor<T> &, uint32_t, uint32_t) {}
template <class T> inline void DumpTensor(const GlobalTensor<T> &, uint32_t, uint32_t) {}

}  // namespace AscendC

// GetBlockIdx/GetBlockNum are called unqualified by kernels with no `using namespace AscendC`
using AscendC::GetBlockIdx;
using AscendC::GetBlockNum;
// event_t and pipe_t are the compiler's own (global) types on the NPU: helpers outside AscendC name them bare
using AscendC::event_t;
using AscendC::pipe_t;
using AscendC::GetTPipePtr;  // global on the NPU too

// the lower-case spellings some kernels use
inline int64_t get_block_idx() { return AscendC::GetBlockIdx(); }
inline int64_t get_block_num() { return AscendC::GetBlockNum(); }
// and the compiler's variables (a kernel's own block_idx, local or member, hides them)
struct AscendcEmuBlockIdx {
    operator int64_t() const { return AscendC::GetBlockIdx(); }  // NOLINT: reads like the variable
};
struct AscendcEmuBlockNum {
    operator int64_t() const { return AscendC::GetBlockNum(); }  // NOLINT
};
inline constexpr AscendcEmuBlockIdx block_idx{};
inline constexpr AscendcEmuBlockNum block_num{};

// ASSERT compiles to nothing in the NPU's kernel build (kernels even write it where no statement may stand:
// `x = n ASSERT(n != 0);`), so it checks nothing here either
#define ASSERT(...)
#ifndef likely
#define likely(x) __builtin_expect(!!(x), 1)
#endif
#ifndef unlikely
#define unlikely(x) __builtin_expect(!!(x), 0)
#endif
#define KERNEL_TASK_TYPE_DEFAULT(type)
#define KERNEL_TASK_TYPE(key, type)
#define ASCEND_IS_AIV true
#define ASCEND_IS_AIC false
#define TRACE_START(id)
#define TRACE_STOP(id)
#define PRINTF AscendC::printf
#define TILING_KEY_IS(k) (::ascendc_emu::g_block.tiling_key == static_cast<uint64_t>(k))
