// A .cpp file that holds device code: the build file marks it LANGUAGE HIP.
#include "saxpy_library.hpp"

#include <hip/hip_runtime.h>

namespace {

__global__ void saxpy_kernel(float a, const float* x, float* y, unsigned int size) {
  const unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < size) y[i] = a * x[i] + y[i];
}

}  // namespace

namespace example {

int saxpy_on_device(float a, const float* x, float* y, unsigned int size) {
  int count = 0;
  if (hipGetDeviceCount(&count) != hipSuccess || count == 0) return 1;
  float *d_x = nullptr, *d_y = nullptr;
  const size_t bytes = size * sizeof(float);
  if (hipMalloc(&d_x, bytes) != hipSuccess || hipMalloc(&d_y, bytes) != hipSuccess) return -1;
  if (hipMemcpy(d_x, x, bytes, hipMemcpyHostToDevice) != hipSuccess) return -1;
  if (hipMemcpy(d_y, y, bytes, hipMemcpyHostToDevice) != hipSuccess) return -1;
  saxpy_kernel<<<(size + 255) / 256, 256>>>(a, d_x, d_y, size);
  if (hipGetLastError() != hipSuccess) return -1;
  if (hipMemcpy(y, d_y, bytes, hipMemcpyDeviceToHost) != hipSuccess) return -1;
  return hipFree(d_x) == hipSuccess && hipFree(d_y) == hipSuccess ? 0 : -1;
}

}  // namespace example
