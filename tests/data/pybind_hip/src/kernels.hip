// Device code the way a ROCm library writes it: HIP headers, device-library math
// (sincosf, expf from ocml), warp-level intrinsics and the runtime launch API.
#include <hip/hip_runtime.h>

#include "kernels.h"

namespace {

__global__ void saxpy_kernel(int n, float a, const float* __restrict__ x, float* __restrict__ y) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    y[i] = fmaf(a, x[i], y[i]);
}

__global__ void softplus_rotate_kernel(int n, float* __restrict__ v) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    float s, c;
    sincosf(v[i], &s, &c);
    v[i] = logf(1.0f + expf(s * c));
  }
}

__global__ void warp_sum_kernel(const float* __restrict__ x, float* __restrict__ out, int n) {
  float v = 0.0f;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) v += x[i];
  for (int offset = warpSize / 2; offset > 0; offset /= 2) v += __shfl_down(v, offset);
  if (threadIdx.x % warpSize == 0) atomicAdd(out, v);
}

}  // namespace

hipError_t saxpy(int n, float a, const float* x, float* y) {
  hipLaunchKernelGGL(saxpy_kernel, dim3((n + 255) / 256), dim3(256), 0, nullptr, n, a, x, y);
  softplus_rotate_kernel<<<(n + 255) / 256, 256>>>(n, y);
  return hipGetLastError();
}

hipError_t sum(const float* x, float* out, int n) {
  warp_sum_kernel<<<(n + 255) / 256, 256>>>(x, out, n);
  return hipGetLastError();
}
