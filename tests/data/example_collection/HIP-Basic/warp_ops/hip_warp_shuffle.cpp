// A warp-wide sum with shuffles; the warp size is read at run time (32 or 64).
#include "example_utils.hpp"

#include <hip/hip_runtime.h>

#include <cstdio>
#include <vector>

__global__ void warp_sum_kernel(const int* in, int* out) {
  int value = in[threadIdx.x];
  for (int offset = warpSize / 2; offset > 0; offset /= 2) value += __shfl_down(value, offset);
  if (threadIdx.x % warpSize == 0) out[threadIdx.x / warpSize] = value;
}

int main() {
  if (!have_device("hip_warp_shuffle")) return 0;
  int warp_size = 0;
  HIP_CHECK(hipDeviceGetAttribute(&warp_size, hipDeviceAttributeWarpSize, 0));
  const int threads = warp_size * 4;
  std::vector<int> in(threads, 1), out(4, 0);
  int *d_in = nullptr, *d_out = nullptr;
  HIP_CHECK(hipMalloc(&d_in, threads * sizeof(int)));
  HIP_CHECK(hipMalloc(&d_out, 4 * sizeof(int)));
  HIP_CHECK(hipMemcpy(d_in, in.data(), threads * sizeof(int), hipMemcpyHostToDevice));
  warp_sum_kernel<<<1, threads>>>(d_in, d_out);
  HIP_CHECK(hipGetLastError());
  HIP_CHECK(hipMemcpy(out.data(), d_out, 4 * sizeof(int), hipMemcpyDeviceToHost));
  HIP_CHECK(hipFree(d_in));
  HIP_CHECK(hipFree(d_out));
  int errors = 0;
  for (int v : out) errors += v != warp_size;
  std::printf("hip_warp_shuffle: %d mismatches\n", errors);
  return errors == 0 ? 0 : 1;
}
