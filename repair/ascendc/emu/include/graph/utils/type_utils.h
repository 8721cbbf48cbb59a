// ascendc-cpu: ge::TypeUtils and the ge:: types.
#pragma once

#include "ascendc_emu/host.h"
