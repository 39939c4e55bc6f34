// Warp votes: how many lanes of each warp hold an odd value (__ballot + __popcll).
#include "example_utils.hpp"

#include <hip/hip_runtime.h>

#include <cstdio>
#include <vector>

__global__ void odd_lanes_kernel(const int* in, int* out) {
  const unsigned long long mask = __ballot(in[threadIdx.x] & 1);
  if (threadIdx.x % warpSize == 0) out[threadIdx.x / warpSize] = __popcll(mask);
}

int main() {
  if (!have_device("hip_warp_vote")) return 0;
  int warp_size = 0;
  HIP_CHECK(hipDeviceGetAttribute(&warp_size, hipDeviceAttributeWarpSize, 0));
  const int threads = warp_size * 2;
  std::vector<int> in(threads), out(2, 0);
  for (int i = 0; i < threads; ++i) in[i] = i;
  int *d_in = nullptr, *d_out = nullptr;
  HIP_CHECK(hipMalloc(&d_in, threads * sizeof(int)));
  HIP_CHECK(hipMalloc(&d_out, 2 * sizeof(int)));
  HIP_CHECK(hipMemcpy(d_in, in.data(), threads * sizeof(int), hipMemcpyHostToDevice));
  odd_lanes_kernel<<<1, threads>>>(d_in, d_out);
  HIP_CHECK(hipGetLastError());
  HIP_CHECK(hipMemcpy(out.data(), d_out, 2 * sizeof(int), hipMemcpyDeviceToHost));
  HIP_CHECK(hipFree(d_in));
  HIP_CHECK(hipFree(d_out));
  int errors = 0;
  for (int v : out) errors += v != warp_size / 2;
  std::printf("hip_warp_vote: %d mismatches\n", errors);
  return errors == 0 ? 0 : 1;
}
