// ascendc-cpu: an internal header of the NPU's kernel library that some kernels include by name; what they call
// from it is part of the emulated API (kernel_operator.h) or fails to compile, naming it.
#pragma once

#include "kernel_operator.h"
