// Scales a vector in place with a grid-stride kernel; compiled as HIP.
#include "saxpy_library.hpp"

#include <hip/hip_runtime.h>

namespace {

__global__ void scale_kernel(float a, float* x, unsigned int size) {
  for (unsigned int i = blockIdx.x * blockDim.x + threadIdx.x; i < size; i += gridDim.x * blockDim.x) x[i] *= a;
}

}  // namespace

namespace example {

int scale_on_device(float a, float* x, unsigned int size) {
  int count = 0;
  if (hipGetDeviceCount(&count) != hipSuccess || count == 0) return 1;
  float* d_x = nullptr;
  const size_t bytes = size * sizeof(float);
  if (hipMalloc(&d_x, bytes) != hipSuccess) return -1;
  if (hipMemcpy(d_x, x, bytes, hipMemcpyHostToDevice) != hipSuccess) return -1;
  scale_kernel<<<64, 256>>>(a, d_x, size);
  if (hipGetLastError() != hipSuccess) return -1;
  if (hipMemcpy(x, d_x, bytes, hipMemcpyDeviceToHost) != hipSuccess) return -1;
  return hipFree(d_x) == hipSuccess ? 0 : -1;
}

}  // namespace example
