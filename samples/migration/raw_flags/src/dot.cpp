// Block partial dot products; the "tuned" target builds it with backend options.
#include "device.h"
#include "raw.h"

RAW_DEVICE static float raw_block_sum(float* tile, unsigned tid) {
  for (unsigned s = 128; s > 0; s >>= 1) {
    if (tid < s) tile[tid] += tile[tid + s];
    __builtin_amdgcn_fence(__ATOMIC_RELEASE, "workgroup");
    __builtin_amdgcn_s_barrier();
    __builtin_amdgcn_fence(__ATOMIC_ACQUIRE, "workgroup");
  }
  return tile[0];
}

extern "C" RAW_KERNEL void raw_dot_kernel(const float* x, const float* y, float* partial, unsigned n) {
  RAW_SHARED float tile[256];
  unsigned tid = __builtin_amdgcn_workitem_id_x();
  unsigned i = raw_global_x();
  tile[tid] = i < n ? x[i] * y[i] : 0.0f;
  __builtin_amdgcn_s_barrier();
  float s = raw_block_sum(tile, tid);
  if (tid == 0) partial[__builtin_amdgcn_workgroup_id_x()] = s;
}

extern "C" int raw_dot_partial(const float* x, const float* y, float* partial, unsigned n, void* stream) {
  void* args[] = {&x, &y, &partial, &n};
  return hipLaunchKernel(reinterpret_cast<const void*>(&raw_dot_kernel), dim3{(n + 255) / 256, 1, 1},
                         dim3{256, 1, 1}, args, 0, stream);
}
