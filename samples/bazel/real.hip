// Real HIP: hip_runtime.h, threadIdx, device math from ROCm's ocml, an atomic and a
// warp shuffle bounded by the runtime warpSize.
#include "real.h"

#include <hip/hip_runtime.h>

__global__ void softplus_kernel(const float* x, float* y, int n, float* total) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float v = i < n ? log1pf(expf(x[i])) : 0.0f;
  for (int offset = warpSize / 2; offset > 0; offset /= 2) v += __shfl_down(v, offset);
  if (i < n) y[i] = log1pf(expf(x[i]));
  if (threadIdx.x % warpSize == 0) atomicAdd(total, v);
}

hipError_t real_softplus(const float* x, float* y, int n) {
  float* total = nullptr;
  hipError_t err = hipMalloc(&total, sizeof(float));
  if (err != hipSuccess) return err;
  softplus_kernel<<<(n + 255) / 256, 256>>>(x, y, n, total);
  err = hipGetLastError();
  (void)hipFree(total);
  return err;
}
