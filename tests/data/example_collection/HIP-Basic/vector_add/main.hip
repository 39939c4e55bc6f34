// c = a + b with the kernel in another translation unit.
#include "example_utils.hpp"
#include "vector_add_kernels.hpp"

#include <hip/hip_runtime.h>

#include <cstdio>
#include <vector>

int main() {
  if (!have_device("hip_vector_add")) return 0;
  constexpr unsigned int size = 1 << 20;
  std::vector<float> a(size, 1.5f), b(size, 2.5f), c(size);
  float *d_a = nullptr, *d_b = nullptr, *d_c = nullptr;
  HIP_CHECK(hipMalloc(&d_a, size * sizeof(float)));
  HIP_CHECK(hipMalloc(&d_b, size * sizeof(float)));
  HIP_CHECK(hipMalloc(&d_c, size * sizeof(float)));
  HIP_CHECK(hipMemcpy(d_a, a.data(), size * sizeof(float), hipMemcpyHostToDevice));
  HIP_CHECK(hipMemcpy(d_b, b.data(), size * sizeof(float), hipMemcpyHostToDevice));
  launch_vector_add(d_a, d_b, d_c, size, hipStreamDefault);
  HIP_CHECK(hipGetLastError());
  HIP_CHECK(hipMemcpy(c.data(), d_c, size * sizeof(float), hipMemcpyDeviceToHost));
  HIP_CHECK(hipFree(d_a));
  HIP_CHECK(hipFree(d_b));
  HIP_CHECK(hipFree(d_c));
  unsigned int errors = 0;
  for (float v : c) errors += v != 4.f;
  std::printf("hip_vector_add: %u mismatches\n", errors);
  return errors == 0 ? 0 : 1;
}
