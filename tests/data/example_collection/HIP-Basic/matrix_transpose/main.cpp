// A tiled matrix transpose through shared memory (LDS), checked against the host.
#include "example_utils.hpp"

#include <hip/hip_runtime.h>

#include <cstdio>
#include <vector>

constexpr unsigned int tile = 16;

__global__ void transpose_kernel(const float* in, float* out, unsigned int width, unsigned int height) {
  __shared__ float block[tile][tile + 1];  // +1: no bank conflicts on the transposed read
  unsigned int x = blockIdx.x * tile + threadIdx.x;
  unsigned int y = blockIdx.y * tile + threadIdx.y;
  if (x < width && y < height) block[threadIdx.y][threadIdx.x] = in[y * width + x];
  __syncthreads();
  x = blockIdx.y * tile + threadIdx.x;
  y = blockIdx.x * tile + threadIdx.y;
  if (x < height && y < width) out[y * height + x] = block[threadIdx.x][threadIdx.y];
}

int main() {
  if (!have_device("hip_matrix_transpose")) return 0;
  constexpr unsigned int width = 200, height = 120;
  std::vector<float> in(width * height), out(width * height);
  for (unsigned int i = 0; i < in.size(); ++i) in[i] = static_cast<float>(i);
  float *d_in = nullptr, *d_out = nullptr;
  HIP_CHECK(hipMalloc(&d_in, in.size() * sizeof(float)));
  HIP_CHECK(hipMalloc(&d_out, out.size() * sizeof(float)));
  HIP_CHECK(hipMemcpy(d_in, in.data(), in.size() * sizeof(float), hipMemcpyHostToDevice));
  const dim3 grid(ceiling_div(width, tile), ceiling_div(height, tile));
  transpose_kernel<<<grid, dim3(tile, tile)>>>(d_in, d_out, width, height);
  HIP_CHECK(hipGetLastError());
  HIP_CHECK(hipMemcpy(out.data(), d_out, out.size() * sizeof(float), hipMemcpyDeviceToHost));
  HIP_CHECK(hipFree(d_in));
  HIP_CHECK(hipFree(d_out));
  unsigned int errors = 0;
  for (unsigned int y = 0; y < height; ++y)
    for (unsigned int x = 0; x < width; ++x) errors += out[x * height + y] != in[y * width + x];
  std::printf("hip_matrix_transpose: %u mismatches\n", errors);
  return errors == 0 ? 0 : 1;
}
