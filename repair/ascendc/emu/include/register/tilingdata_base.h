// ascendc-cpu: the tiling struct macros, and (as on the host, where a tiling header is written) the ge:: and gert::
// types a tiling header may name beside its structs.
#pragma once

#include "ascendc_emu/tiling_data.h"
#include "ascendc_emu/host.h"
