// The little of HIP that builtin-only kernels need: no HIP headers, no device libraries.
#pragma once

#define __global__ __attribute__((global))
#define __device__ __attribute__((device))

struct dim3 {
  unsigned x, y, z;
};
extern "C" int hipLaunchKernel(const void* func, dim3 grid, dim3 block, void** args,
                               unsigned long shared_mem, void* stream);

__device__ inline unsigned global_id_x() {
  return __builtin_amdgcn_workgroup_id_x() * __builtin_amdgcn_workgroup_size_x() +
         __builtin_amdgcn_workitem_id_x();
}
