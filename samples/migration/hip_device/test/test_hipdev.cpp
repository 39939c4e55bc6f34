// rocPRIM-style test: a .cpp compiled as HIP through hip::device, with its own
// fill kernel next to calls into the library. Without a GPU the launches fail and
// it says so; the build is the point.
#include <cstdio>

#include "../src/device.hpp"
#include "../src/hipdev.hpp"

extern "C" HIPDEV_KERNEL void hipdev_fill_kernel(float v, float* x, unsigned n) {
  unsigned i = hipdev::global_x();
  if (i < n) x[i] = v;
}

int main() {
  float v = 1.0f;
  float* x = nullptr;
  unsigned n = 0;
  void* args[] = {&v, &x, &n};
  int err = hipLaunchKernel(reinterpret_cast<const void*>(&hipdev_fill_kernel), dim3{1, 1, 1},
                            dim3{64, 1, 1}, args, 0, nullptr);
  err |= hipdev_saxpy(2.0f, x, x, n, nullptr);
  std::printf("test_hipdev: launch status %d\n", err);
  return 0;
}
