#ifndef BIAS_ADD_CUSTOM_TILING_H
#define BIAS_ADD_CUSTOM_TILING_H

#include "register/tilingdata_base.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(BiasAddCustomTilingData)
TILING_DATA_FIELD_DEF(uint32_t, rows);
TILING_DATA_FIELD_DEF(uint32_t, cols);
TILING_DATA_FIELD_DEF(uint32_t, rowsPerCore);
END_TILING_DATA_DEF;

REGISTER_TILING_DATA_CLASS(BiasAddCustom, BiasAddCustomTilingData)
}  // namespace optiling

#endif  // BIAS_ADD_CUSTOM_TILING_H
