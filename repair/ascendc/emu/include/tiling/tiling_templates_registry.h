// ascendc-cpu: the ops libraries' tiling-template registry header. Only what its includers compile against without
// registering a template is here (the host API); REGISTER_TILING_TEMPLATE is not emulated.
#pragma once

#include "ascendc_emu/host.h"
