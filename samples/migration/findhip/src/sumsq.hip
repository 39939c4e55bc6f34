// Block partial sums of squares (the first step of a norm).
#include "device.h"
#include "fh.h"

extern "C" FH_KERNEL void fh_sumsq_kernel(const float* x, float* partial, unsigned n) {
  FH_SHARED float tile[256];
  unsigned tid = __builtin_amdgcn_workitem_id_x();
  unsigned i = fh_global_x();
  float v = i < n ? x[i] : 0.0f;
  tile[tid] = v * v;
  for (unsigned s = 128; s > 0; s >>= 1) {
    __builtin_amdgcn_fence(__ATOMIC_RELEASE, "workgroup");
    __builtin_amdgcn_s_barrier();
    __builtin_amdgcn_fence(__ATOMIC_ACQUIRE, "workgroup");
    if (tid < s) tile[tid] += tile[tid + s];
  }
  if (tid == 0) partial[__builtin_amdgcn_workgroup_id_x()] = tile[0];
}

extern "C" int fh_sumsq(const float* x, float* partial, unsigned n, void* stream) {
  void* args[] = {&x, &partial, &n};
  return hipLaunchKernel(reinterpret_cast<const void*>(&fh_sumsq_kernel), dim3{(n + 255) / 256, 1, 1},
                         dim3{256, 1, 1}, args, 0, stream);
}
