// ascendc-cpu: the AscendC kernel API (vector subset) for g++, written from the public AscendC documentation.
#pragma once

#include "ascendc_emu/base.h"
#include "ascendc_emu/tensor.h"
#include "ascendc_emu/pipe.h"
#include "ascendc_emu/copy.h"
#include "ascendc_emu/vector.h"
#include "ascendc_emu/reduce.h"
#include "ascendc_emu/tiling_data.h"
#include "ascendc_emu/launch.h"

namespace AscendC {

constexpr uint32_t ONE_BLK_SIZE = 32;
constexpr uint32_t ONE_REPEAT_BYTE_SIZE = 256;
constexpr uint32_t DEFAULT_BLK_NUM = 8;
constexpr uint32_t MAX_REPEAT_TIMES = 255;
constexpr uint32_t BLOCK_CUBE = 16;

template <class T> __aicore__ inline T DivCeil(T a, T b) { return (a + b - 1) / b; }
template <class T> __aicore__ inline T AlignUp(T a, T b) { return (a + b - 1) / b * b; }

inline GM_ADDR GetUserWorkspace(GM_ADDR workspace) {
    return workspace == nullptr ? nullptr : workspace + ascendc_emu::g_config.sys_workspace;
}
inline GM_ADDR GetSysWorkSpacePtr() { return nullptr; }

template <class... A> inline void printf(const char *fmt, A... args) {
    std::fprintf(stderr, fmt, args...);
}
template <class T> inline void DumpTensor(const LocalTensor<T> &, uint32_t, uint32_t) {}
template <class T> inline void DumpTensor(const GlobalTensor<T> &, uint32_t, uint32_t) {}

}  // namespace AscendC

#define KERNEL_TASK_TYPE_DEFAULT(type)
#define KERNEL_TASK_TYPE(key, type)
#define ASCEND_IS_AIV true
#define ASCEND_IS_AIC false
#define TRACE_START(id)
#define TRACE_STOP(id)
#define PRINTF AscendC::printf
#define TILING_KEY_IS(k) (::ascendc_emu::g_block.tiling_key == static_cast<uint64_t>(k))
