// y = a*x + y: built for every GPU target.
#include "device.h"
#include "unr.h"

extern "C" UNR_KERNEL void unr_axpy_kernel(float a, const float* x, float* y, unsigned n) {
  unsigned i = unr_global_x();
  if (i < n) y[i] = a * x[i] + y[i];
}

extern "C" int unr_axpy(float a, const float* x, float* y, unsigned n, void* stream) {
  void* args[] = {&a, &x, &y, &n};
  return hipLaunchKernel(reinterpret_cast<const void*>(&unr_axpy_kernel), dim3{(n + 255) / 256, 1, 1},
                         dim3{256, 1, 1}, args, 0, stream);
}
