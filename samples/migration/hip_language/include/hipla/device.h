// Device vocabulary from clang builtins only (no HIP headers, no device libraries),
// so the same kernels compile for any GPU target clang supports, with no ROCm install.
#pragma once

#define HIPLA_KERNEL __attribute__((global))
#define HIPLA_DEVICE __attribute__((device))
#define HIPLA_SHARED __attribute__((shared))

// The HIP runtime (libamdhip64) provides these at link time.
struct dim3 {
  unsigned x, y, z;
};
extern "C" int hipLaunchKernel(const void* function, dim3 grid, dim3 block, void** args,
                               unsigned long shared_bytes, void* stream);

namespace hipla {

HIPLA_DEVICE inline unsigned thread_x() { return __builtin_amdgcn_workitem_id_x(); }
HIPLA_DEVICE inline unsigned block_x() { return __builtin_amdgcn_workgroup_id_x(); }
HIPLA_DEVICE inline unsigned block_dim_x() { return __builtin_amdgcn_workgroup_size_x(); }
HIPLA_DEVICE inline unsigned global_x() { return block_x() * block_dim_x() + thread_x(); }
HIPLA_DEVICE inline void sync_block() {
  __builtin_amdgcn_fence(__ATOMIC_RELEASE, "workgroup");
  __builtin_amdgcn_s_barrier();
  __builtin_amdgcn_fence(__ATOMIC_ACQUIRE, "workgroup");
}

inline dim3 grid_for(unsigned n, unsigned block) { return dim3{(n + block - 1) / block, 1, 1}; }

}  // namespace hipla
