// ascendc-cpu: what the generated host unit includes first (precompiled once per cache): the host API and the
// library's C interface on the host side.
#pragma once

#include "ascendc_emu/host.h"
#include "ascendc_emu/host_entry.h"
