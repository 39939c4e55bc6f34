// Block maximum tuned for 64-wide wavefronts (CDNA, gfx9): added to the library
// only when GPU_TARGETS matches gfx9.
#include "device.h"
#include "unr.h"

extern "C" UNR_KERNEL void unr_block_max_kernel(const float* x, float* partial, unsigned n) {
  UNR_SHARED float tile[256];
  unsigned tid = __builtin_amdgcn_workitem_id_x();
  unsigned i = unr_global_x();
  tile[tid] = i < n ? x[i] : -3.0e38f;
  for (unsigned s = 128; s >= 64; s >>= 1) {  // cross-wave steps; the last wave finishes alone
    __builtin_amdgcn_s_barrier();
    if (tid < s && tile[tid + s] > tile[tid]) tile[tid] = tile[tid + s];
  }
  __builtin_amdgcn_s_barrier();
  if (tid < 64) {
    for (unsigned s = 32; s > 0; s >>= 1)
      if (tile[tid + s] > tile[tid]) tile[tid] = tile[tid + s];
  }
  if (tid == 0) partial[__builtin_amdgcn_workgroup_id_x()] = tile[0];
}

extern "C" int unr_block_max(const float* x, float* partial, unsigned n, void* stream) {
  void* args[] = {&x, &partial, &n};
  return hipLaunchKernel(reinterpret_cast<const void*>(&unr_block_max_kernel), dim3{(n + 255) / 256, 1, 1},
                         dim3{256, 1, 1}, args, 0, stream);
}
