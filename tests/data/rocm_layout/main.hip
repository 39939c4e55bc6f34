#include <hip/hip_runtime.h>
#include <cstdio>

__global__ void scale(float* x, float a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] = a * sinf(x[i]);
}

int main() {
  int count = 0;
  if (hipGetDeviceCount(&count) != hipSuccess || count == 0) {
    std::printf("rocm_layout: no AMD GPU\n");
    return 0;
  }
  float* d = nullptr;
  if (hipMalloc(&d, 256 * sizeof(float)) != hipSuccess) return 1;
  scale<<<1, 256>>>(d, 2.0f, 256);
  return hipDeviceSynchronize() == hipSuccess ? 0 : 1;
}
