// A real HIP program: hip_runtime.h, a <<<>>> launch, linked against libamdhip64.
// On a machine without an AMD GPU it says so and exits 0: the build is the point.
#include <hip/hip_runtime.h>

#include <cstdio>
#include <vector>

__global__ void axpy(float a, const float* x, float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}

int main() {
  int count = 0;
  hipError_t err = hipGetDeviceCount(&count);
  if (err != hipSuccess || count == 0) {
    std::printf("hip_app: no AMD GPU present (%s); the kernel was built but not launched\n",
                hipGetErrorString(err));
    return 0;
  }
  const int n = 1 << 20;
  std::vector<float> hx(n, 1.0f), hy(n, 2.0f);
  float *x = nullptr, *y = nullptr;
  if (hipMalloc(&x, n * sizeof(float)) != hipSuccess || hipMalloc(&y, n * sizeof(float)) != hipSuccess) {
    std::printf("hip_app: hipMalloc failed\n");
    return 1;
  }
  (void)hipMemcpy(x, hx.data(), n * sizeof(float), hipMemcpyHostToDevice);
  (void)hipMemcpy(y, hy.data(), n * sizeof(float), hipMemcpyHostToDevice);
  axpy<<<(n + 255) / 256, 256>>>(3.0f, x, y, n);
  (void)hipMemcpy(hy.data(), y, n * sizeof(float), hipMemcpyDeviceToHost);
  (void)hipFree(x);
  (void)hipFree(y);
  std::printf("hip_app: y[0] = %g (expected 5)\n", hy[0]);
  return hy[0] == 5.0f ? 0 : 1;
}
