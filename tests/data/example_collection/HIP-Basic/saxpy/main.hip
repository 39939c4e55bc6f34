// y = a * x + y on the GPU, checked against the host.
#include "example_utils.hpp"

#include <hip/hip_runtime.h>

#include <cmath>
#include <cstdio>
#include <vector>

__global__ void saxpy_kernel(const float a, const float* d_x, float* d_y, const unsigned int size) {
  const unsigned int global_idx = blockIdx.x * blockDim.x + threadIdx.x;
  if (global_idx < size) {
    d_y[global_idx] = a * d_x[global_idx] + d_y[global_idx];
  }
}

int main() {
  if (!have_device("hip_saxpy")) return 0;
  constexpr unsigned int size = 1000000;
  constexpr unsigned int block_size = 256;
  constexpr float a = 2.f;
  std::vector<float> x(size), y(size);
  for (unsigned int i = 0; i < size; ++i) {
    x[i] = static_cast<float>(i);
    y[i] = 1.f;
  }
  float* d_x = nullptr;
  float* d_y = nullptr;
  HIP_CHECK(hipMalloc(&d_x, size * sizeof(float)));
  HIP_CHECK(hipMalloc(&d_y, size * sizeof(float)));
  HIP_CHECK(hipMemcpy(d_x, x.data(), size * sizeof(float), hipMemcpyHostToDevice));
  HIP_CHECK(hipMemcpy(d_y, y.data(), size * sizeof(float), hipMemcpyHostToDevice));
  saxpy_kernel<<<ceiling_div(size, block_size), block_size, 0, hipStreamDefault>>>(a, d_x, d_y, size);
  HIP_CHECK(hipGetLastError());
  HIP_CHECK(hipMemcpy(y.data(), d_y, size * sizeof(float), hipMemcpyDeviceToHost));
  HIP_CHECK(hipFree(d_x));
  HIP_CHECK(hipFree(d_y));
  unsigned int errors = 0;
  for (unsigned int i = 0; i < size; ++i) errors += std::fabs(y[i] - (a * x[i] + 1.f)) > 1e-3f;
  std::printf("hip_saxpy: %u mismatches\n", errors);
  return errors == 0 ? 0 : 1;
}
