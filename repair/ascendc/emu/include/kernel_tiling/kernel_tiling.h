// ascendc-cpu: the tiling struct macros, as a kernel includes them.
#pragma once

#include "ascendc_emu/tiling_data.h"
