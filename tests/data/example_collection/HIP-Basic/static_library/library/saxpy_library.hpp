#pragma once

// Host-only interface: no HIP types, so C++ code that is not HIP can call it.
namespace example {

// 0 when a HIP device ran the kernels, 1 when there is none, -1 on a HIP error.
int saxpy_on_device(float a, const float* x, float* y, unsigned int size);
int scale_on_device(float a, float* x, unsigned int size);

}  // namespace example
