// A HIP binary with its own kernel plus the :kernels library. Without a GPU the
// launches report an error; the build (and the embedded device code) is the point.
#include <cstdio>

#include "hip_min.h"
#include "kernels.h"

__global__ void fill(float* x, float value, int n) {
  int i = static_cast<int>(global_id_x());
  if (i < n) x[i] = value;
}

int main() {
  float* x = nullptr;
  float value = 1.0f;
  int n = 0;
  void* args[] = {&x, &value, &n};
  int status = hipLaunchKernel(reinterpret_cast<const void*>(&fill), dim3{1, 1, 1}, dim3{1, 1, 1},
                               args, 0, nullptr);
  std::printf("fill: %d, scale: %d\n", status, launch_scale(x, 2.0f, n));
  return 0;
}
