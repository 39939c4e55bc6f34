// Builtin-only kernel shared by the CMake pattern samples (no HIP headers needed).
#define __global__ __attribute__((global))
struct dim3 { unsigned x, y, z; };
extern "C" int hipLaunchKernel(const void*, dim3, dim3, void**, unsigned long, void*);

extern "C" __global__ void saxpy(float a, const float* x, float* y, unsigned n) {
  unsigned i = __builtin_amdgcn_workgroup_id_x() * __builtin_amdgcn_workgroup_size_x() +
               __builtin_amdgcn_workitem_id_x();
  if (i < n) y[i] = a * x[i] + y[i];
}
