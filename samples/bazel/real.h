// The host API of a library written against hip_runtime.h (no -nogpuinc/-nogpulib).
#pragma once
#include <hip/hip_runtime_api.h>

hipError_t real_softplus(const float* x, float* y, int n);
