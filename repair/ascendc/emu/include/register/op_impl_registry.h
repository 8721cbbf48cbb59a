// ascendc-cpu: the host side of an msopgen operator (OpDef, gert::TilingContext, ge:: types).
#pragma once

#include "ascendc_emu/host.h"
