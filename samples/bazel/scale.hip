#include "hip_min.h"
#include "kernels.h"

__global__ void scale(float* x, float factor, int n) {
  int i = static_cast<int>(global_id_x());
  if (i < n) x[i] = __builtin_fmaf(x[i], factor, 0.0f);
}

// One work-group of 256 sums a strided slice of x with atomics on out[0].
__global__ void reduce_sum(const float* x, float* out, int n) {
  float acc = 0.0f;
  for (int i = static_cast<int>(__builtin_amdgcn_workitem_id_x()); i < n; i += 256) acc += x[i];
  __atomic_fetch_add(out, acc, __ATOMIC_RELAXED);
}

int launch_scale(float* x, float factor, int n) {
  void* args[] = {&x, &factor, &n};
  unsigned blocks = static_cast<unsigned>((n + 255) / 256);
  return hipLaunchKernel(reinterpret_cast<const void*>(&scale), dim3{blocks, 1, 1}, dim3{256, 1, 1},
                         args, 0, nullptr);
}

int launch_reduce_sum(const float* x, float* out, int n) {
  void* args[] = {&x, &out, &n};
  return hipLaunchKernel(reinterpret_cast<const void*>(&reduce_sum), dim3{1, 1, 1}, dim3{256, 1, 1},
                         args, 0, nullptr);
}
