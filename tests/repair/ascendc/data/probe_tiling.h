// The tiling struct of the host test (emu_host.cpp) and of the kernel that reads it back (emu_api.cpp).
#ifndef PROBE_TILING_H
#define PROBE_TILING_H

#include "register/tilingdata_base.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(ProbeTiling)
TILING_DATA_FIELD_DEF(uint32_t, coreNum);
TILING_DATA_FIELD_DEF(uint32_t, ubSize);
TILING_DATA_FIELD_DEF(int32_t, dtype0);
TILING_DATA_FIELD_DEF(int32_t, dtype1);
TILING_DATA_FIELD_DEF(int64_t, numel0);
TILING_DATA_FIELD_DEF(int64_t, lastDim1);
TILING_DATA_FIELD_DEF(uint32_t, dimNum0);
TILING_DATA_FIELD_DEF(float, alpha);
TILING_DATA_FIELD_DEF(int64_t, k);
TILING_DATA_FIELD_DEF(uint32_t, flag);
TILING_DATA_FIELD_DEF_ARR(int64_t, 4, axes);
END_TILING_DATA_DEF;

REGISTER_TILING_DATA_CLASS(ProbeCustom, ProbeTiling)
}  // namespace optiling

#endif  // PROBE_TILING_H
