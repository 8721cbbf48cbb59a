// ascendc-cpu: SoftMaxTiling, the struct the host's SoftMaxTilingFunc fills and a kernel's tiling carries to SoftMax
// (AscendC::tiling::SoftMaxTiling on both sides, optiling::SoftMaxTiling on the host: one type, so a tiling struct's
// TILING_DATA_FIELD_DEF_STRUCT(SoftMaxTiling, ...) is the kernel's SoftMaxTiling byte for byte).
#pragma once

#include <cstdint>

#define ASCENDC_EMU_SOFTMAX_FIELD(f)                                                                                \
    uint32_t f = 0;                                                                                                \
    void set_##f(uint32_t v) { f = v; }                                                                            \
    uint32_t get_##f() const { return f; }

namespace AscendC {
namespace tiling {
struct SoftMaxTiling {
    ASCENDC_EMU_SOFTMAX_FIELD(srcM)
    ASCENDC_EMU_SOFTMAX_FIELD(srcK)
    ASCENDC_EMU_SOFTMAX_FIELD(srcSize)
    ASCENDC_EMU_SOFTMAX_FIELD(outMaxM)
    ASCENDC_EMU_SOFTMAX_FIELD(outMaxK)
    ASCENDC_EMU_SOFTMAX_FIELD(outMaxSize)
    ASCENDC_EMU_SOFTMAX_FIELD(splitM)
    ASCENDC_EMU_SOFTMAX_FIELD(splitK)
    ASCENDC_EMU_SOFTMAX_FIELD(splitSize)
    ASCENDC_EMU_SOFTMAX_FIELD(reduceM)
    ASCENDC_EMU_SOFTMAX_FIELD(reduceK)
    ASCENDC_EMU_SOFTMAX_FIELD(reduceSize)
    ASCENDC_EMU_SOFTMAX_FIELD(rangeM)
    ASCENDC_EMU_SOFTMAX_FIELD(tailM)
    ASCENDC_EMU_SOFTMAX_FIELD(tailSplitSize)
    ASCENDC_EMU_SOFTMAX_FIELD(tailReduceSize)
};
}  // namespace tiling
using tiling::SoftMaxTiling;
}  // namespace AscendC

namespace optiling {
using SoftMaxTiling = AscendC::tiling::SoftMaxTiling;
}  // namespace optiling

#undef ASCENDC_EMU_SOFTMAX_FIELD
