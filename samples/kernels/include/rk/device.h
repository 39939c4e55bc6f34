// Device-side vocabulary from clang builtins only: no HIP headers, no device
// libraries, so the same source compiles for every gfx* and for amdgcnspirv.
#pragma once

#define RK_GLOBAL __attribute__((global))
#define RK_DEVICE __attribute__((device))
#define RK_SHARED __attribute__((shared))

// The host-side stub of each kernel calls hipLaunchKernel; only its
// declaration is needed to compile, the HIP runtime provides it at link time.
struct dim3 {
  unsigned x, y, z;
};
extern "C" int hipLaunchKernel(const void* function, dim3 grid, dim3 block, void** args,
                               unsigned long shared_bytes, void* stream);

namespace rk {

RK_DEVICE inline unsigned thread_x() { return __builtin_amdgcn_workitem_id_x(); }
RK_DEVICE inline unsigned thread_y() { return __builtin_amdgcn_workitem_id_y(); }
RK_DEVICE inline unsigned block_x() { return __builtin_amdgcn_workgroup_id_x(); }
RK_DEVICE inline unsigned block_y() { return __builtin_amdgcn_workgroup_id_y(); }
RK_DEVICE inline unsigned block_dim_x() { return __builtin_amdgcn_workgroup_size_x(); }
RK_DEVICE inline unsigned global_x() { return block_x() * block_dim_x() + thread_x(); }

RK_DEVICE inline void sync_block() {
  __builtin_amdgcn_fence(__ATOMIC_RELEASE, "workgroup");
  __builtin_amdgcn_s_barrier();
  __builtin_amdgcn_fence(__ATOMIC_ACQUIRE, "workgroup");
}

}  // namespace rk
