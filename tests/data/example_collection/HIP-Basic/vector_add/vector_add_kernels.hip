#include "vector_add_kernels.hpp"

#include "example_utils.hpp"

#include <hip/hip_runtime.h>

namespace {

__global__ void vector_add_kernel(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ c,
                                  const unsigned int size) {
  // Grid-stride loop: any grid size covers the whole vector.
  for (unsigned int i = blockIdx.x * blockDim.x + threadIdx.x; i < size; i += gridDim.x * blockDim.x) {
    c[i] = a[i] + b[i];
  }
}

}  // namespace

void launch_vector_add(const float* d_a, const float* d_b, float* d_c, unsigned int size, hipStream_t stream) {
  constexpr unsigned int block_size = 128;
  vector_add_kernel<<<ceiling_div(size, block_size), block_size, 0, stream>>>(d_a, d_b, d_c, size);
}
