// y = a*x + y, one element per thread.
#include "hipla/device.h"
#include "hipla/hipla.h"

extern "C" HIPLA_KERNEL void hipla_saxpy_kernel(float a, const float* x, float* y, unsigned n) {
  unsigned i = hipla::global_x();
  if (i < n) y[i] = a * x[i] + y[i];
}

extern "C" int hipla_saxpy(float a, const float* x, float* y, unsigned n, void* stream) {
  void* args[] = {&a, &x, &y, &n};
  return hipLaunchKernel(reinterpret_cast<const void*>(&hipla_saxpy_kernel), hipla::grid_for(n, 256),
                         dim3{256, 1, 1}, args, 0, stream);
}
