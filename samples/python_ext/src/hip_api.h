// The few HIP runtime entry points this module calls, declared here so the
// kernels compile builtin-only (no HIP headers); libamdhip64 defines them.
#pragma once
#include <cstddef>

extern "C" {
typedef int hipError_t;  // hipSuccess = 0, hipErrorNoDevice = 100
enum { hipSuccess = 0, hipMemcpyHostToDevice = 1, hipMemcpyDeviceToHost = 2 };
hipError_t hipGetDeviceCount(int* count);
const char* hipGetErrorName(hipError_t error);
const char* hipGetErrorString(hipError_t error);
hipError_t hipMalloc(void** ptr, size_t size);
hipError_t hipFree(void* ptr);
hipError_t hipMemcpy(void* dst, const void* src, size_t size, int kind);
hipError_t hipDeviceSynchronize(void);
}

// What clang's host-side kernel launch stubs call (-fhip-new-launch-api); every .hip file with
// __global__ functions needs the declaration.
struct dim3 {
  unsigned x, y, z;
};
extern "C" hipError_t hipLaunchKernel(const void* function, dim3 grid, dim3 block, void** args,
                                      size_t shared_bytes, void* stream);

// Host entry points of kernels.hip, called by module.cpp.
namespace spirv_demo {
// Returns hipSuccess or the failing call's error; *what names the call.
hipError_t saxpy(float a, const float* x, float* y, size_t n, const char** what);
}  // namespace spirv_demo
