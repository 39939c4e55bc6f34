// Benchmark driver: its own scale kernel plus the library's saxpy and sum.
// Without a GPU the launches fail and it says so; the build is the point.
#include <cstdio>

#include "hipla/device.h"
#include "hipla/hipla.h"

extern "C" HIPLA_KERNEL void hipla_scale_kernel(float a, float* x, unsigned n) {
  unsigned i = hipla::global_x();
  if (i < n) x[i] *= a;
}

int main() {
  float a = 2.0f;
  float* x = nullptr;
  unsigned n = 0;
  void* args[] = {&a, &x, &n};
  int err = hipLaunchKernel(reinterpret_cast<const void*>(&hipla_scale_kernel), dim3{1, 1, 1},
                            dim3{64, 1, 1}, args, 0, nullptr);
  err |= hipla_saxpy(a, x, x, n, nullptr);
  std::printf("hipla_bench (%s): launch status %d\n", hipla_build_info(), err);
  return 0;
}
