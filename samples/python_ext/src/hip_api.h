// Host entry points of kernels.hip, called by module.cpp. The HIP runtime API comes
// from the ROCm headers, as in any ROCm library.
#pragma once
#include <hip/hip_runtime_api.h>

#include <cstddef>

namespace spirv_demo {
// Returns hipSuccess or the failing call's error; *what names the call.
hipError_t saxpy(float a, const float* x, float* y, size_t n, const char** what);
}  // namespace spirv_demo
