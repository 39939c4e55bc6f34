// Device vocabulary from clang builtins only (no HIP headers, no device libraries),
// so the same kernels compile for any GPU target clang supports, with no ROCm install.
#pragma once

#define FH_KERNEL __attribute__((global))
#define FH_DEVICE __attribute__((device))
#define FH_SHARED __attribute__((shared))

struct dim3 {
  unsigned x, y, z;
};
extern "C" int hipLaunchKernel(const void* function, dim3 grid, dim3 block, void** args,
                               unsigned long shared_bytes, void* stream);

FH_DEVICE inline unsigned fh_global_x() {
  return __builtin_amdgcn_workgroup_id_x() * __builtin_amdgcn_workgroup_size_x() +
         __builtin_amdgcn_workitem_id_x();
}
