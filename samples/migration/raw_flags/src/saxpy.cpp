// y = a*x + y, compiled as HIP by the -x hip in target_compile_options.
#include "device.h"
#include "raw.h"

extern "C" RAW_KERNEL void raw_saxpy_kernel(float a, const float* x, float* y, unsigned n) {
  unsigned i = raw_global_x();
  if (i < n) y[i] = a * x[i] + y[i];
}

extern "C" int raw_saxpy(float a, const float* x, float* y, unsigned n, void* stream) {
  void* args[] = {&a, &x, &y, &n};
  return hipLaunchKernel(reinterpret_cast<const void*>(&raw_saxpy_kernel), dim3{(n + 255) / 256, 1, 1},
                         dim3{256, 1, 1}, args, 0, stream);
}
