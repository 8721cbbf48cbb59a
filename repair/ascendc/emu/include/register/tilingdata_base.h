// ascendc-cpu: the tiling struct macros (BEGIN_TILING_DATA_DEF, TILING_DATA_FIELD_DEF, ...).
#pragma once

#include "ascendc_emu/tiling_data.h"
