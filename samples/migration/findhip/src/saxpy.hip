// y = a*x + y.
#include "device.h"
#include "fh.h"

extern "C" FH_KERNEL void fh_saxpy_kernel(float a, const float* x, float* y, unsigned n) {
  unsigned i = fh_global_x();
  if (i < n) y[i] = a * x[i] + y[i];
}

extern "C" int fh_saxpy(float a, const float* x, float* y, unsigned n, void* stream) {
  void* args[] = {&a, &x, &y, &n};
  return hipLaunchKernel(reinterpret_cast<const void*>(&fh_saxpy_kernel), dim3{(n + 255) / 256, 1, 1},
                         dim3{256, 1, 1}, args, 0, stream);
}
