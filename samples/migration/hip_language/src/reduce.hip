// Block sums in shared memory: partial[b] = sum of block b's 256 elements.
#include "hipla/device.h"
#include "hipla/hipla.h"

extern "C" HIPLA_KERNEL void hipla_sum_kernel(const float* in, float* partial, unsigned n) {
  HIPLA_SHARED float tile[256];
  unsigned tid = hipla::thread_x();
  unsigned i = hipla::global_x();
  tile[tid] = i < n ? in[i] : 0.0f;
  hipla::sync_block();
  for (unsigned s = 128; s > 0; s >>= 1) {
    if (tid < s) tile[tid] += tile[tid + s];
    hipla::sync_block();
  }
  if (tid == 0) partial[hipla::block_x()] = tile[0];
}

extern "C" int hipla_sum(const float* in, float* partial, unsigned n, void* stream) {
  void* args[] = {&in, &partial, &n};
  return hipLaunchKernel(reinterpret_cast<const void*>(&hipla_sum_kernel), hipla::grid_for(n, 256),
                         dim3{256, 1, 1}, args, 0, stream);
}
