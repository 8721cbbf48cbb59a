// ascendc-cpu: tiling/tiling_type.h of CANN's ops repositories, included by tiling headers beside tiling_base.h.
#pragma once

#include "tiling/tiling_base.h"
