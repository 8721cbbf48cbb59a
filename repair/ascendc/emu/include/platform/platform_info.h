// ascendc-cpu: fe::PlatFormInfos, as a host source names it (the emulated platform: ascendc_emu/platform.h).
#pragma once

#include "ascendc_emu/platform.h"
