// y = a*x + y. A .cpp file: hip::device compiles it with -x hip.
#include "device.hpp"
#include "hipdev.hpp"

extern "C" HIPDEV_KERNEL void hipdev_saxpy_kernel(float a, const float* x, float* y, unsigned n) {
  unsigned i = hipdev::global_x();
  if (i < n) y[i] = a * x[i] + y[i];
}

extern "C" int hipdev_saxpy(float a, const float* x, float* y, unsigned n, void* stream) {
  void* args[] = {&a, &x, &y, &n};
  return hipLaunchKernel(reinterpret_cast<const void*>(&hipdev_saxpy_kernel), dim3{(n + 255) / 256, 1, 1},
                         dim3{256, 1, 1}, args, 0, stream);
}
