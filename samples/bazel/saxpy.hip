#include "hip_min.h"
#include "kernels.h"

__global__ void saxpy(float a, const float* x, float* y, int n) {
  int i = static_cast<int>(global_id_x());
  if (i < n) y[i] = a * x[i] + y[i];
}

int launch_saxpy(float a, const float* x, float* y, int n) {
  void* args[] = {&a, &x, &y, &n};
  unsigned blocks = static_cast<unsigned>((n + 255) / 256);
  return hipLaunchKernel(reinterpret_cast<const void*>(&saxpy), dim3{blocks, 1, 1}, dim3{256, 1, 1},
                         args, 0, nullptr);
}
