// ascendc-cpu: platform_ascendc::PlatformAscendC (core count and UB size come from the emulator's configuration).
#pragma once

#include <algorithm>

#include "ascendc_emu/platform.h"
