#ifndef FAST_GELU_TILING_H
#define FAST_GELU_TILING_H

#include "register/tilingdata_base.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(FastGeluTilingData)
TILING_DATA_FIELD_DEF(uint32_t, totalLength);
TILING_DATA_FIELD_DEF(uint32_t, blockLength);
TILING_DATA_FIELD_DEF(uint32_t, tileLength);
END_TILING_DATA_DEF;

REGISTER_TILING_DATA_CLASS(FastGelu, FastGeluTilingData)
}  // namespace optiling

#endif  // FAST_GELU_TILING_H
