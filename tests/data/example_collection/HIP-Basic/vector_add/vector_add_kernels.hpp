#pragma once

#include <hip/hip_runtime.h>

// c = a + b, elementwise, on the device; the launch is asynchronous on stream.
void launch_vector_add(const float* d_a, const float* d_b, float* d_c, unsigned int size, hipStream_t stream);
