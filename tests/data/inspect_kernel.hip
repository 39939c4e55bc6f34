// A HIP kernel that needs no headers, for the `rocm-spirv inspect` tests.
// -DNAME=… renames it so several objects can be linked into one library.
#ifndef NAME
#define NAME scale
#endif
#define __global__ __attribute__((global))
struct dim3 { unsigned x, y, z; };
extern "C" int hipLaunchKernel(const void*, dim3, dim3, void**, unsigned long, void*);
extern "C" __global__ void NAME(float* x, float a, int n) {
  int i = __builtin_amdgcn_workgroup_id_x() * __builtin_amdgcn_workgroup_size_x() + __builtin_amdgcn_workitem_id_x();
  if (i < n) x[i] *= a;
}
