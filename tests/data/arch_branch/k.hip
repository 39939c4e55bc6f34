#define __global__ __attribute__((global))
struct dim3 { unsigned x, y, z; };
extern "C" int hipLaunchKernel(const void*, dim3, dim3, void**, unsigned long, void*);
#if defined(__HIP_DEVICE_COMPILE__) && !defined(__GFX9__) && !defined(__GFX11__)
#error "this kernel needs a gfx9 or gfx11 target"
#endif
extern "C" __global__ void k(float* x) { x[__builtin_amdgcn_workitem_id_x()] += 1.0f; }
