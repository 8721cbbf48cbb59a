#ifndef TRIL_TILING_H
#define TRIL_TILING_H

#include "register/tilingdata_base.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(TrilTilingData)
TILING_DATA_FIELD_DEF(uint32_t, totalRows);
TILING_DATA_FIELD_DEF(uint32_t, matrixRows);
TILING_DATA_FIELD_DEF(uint32_t, cols);
TILING_DATA_FIELD_DEF(uint32_t, colsAligned);
TILING_DATA_FIELD_DEF(uint32_t, rowsPerCore);
TILING_DATA_FIELD_DEF(int32_t, diagonal);
END_TILING_DATA_DEF;

REGISTER_TILING_DATA_CLASS(Tril, TrilTilingData)
}  // namespace optiling

#endif  // TRIL_TILING_H
