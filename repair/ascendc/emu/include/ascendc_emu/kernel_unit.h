// ascendc-cpu: what the generated kernel unit includes first (precompiled once per cache): the kernel API and the
// library's C interface on the kernel side.
#pragma once

#include "kernel_operator.h"
#include "ascendc_emu/exports.h"
