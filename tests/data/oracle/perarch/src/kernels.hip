#include <hip/hip_runtime.h>

#include "tile.h"

typedef float float4_t __attribute__((ext_vector_type(4)));

// A wave size fixed by the build (PERARCH_WAVEFRONT_SIZE comes from CMakeLists.txt).
static constexpr int WarpSize = PERARCH_WAVEFRONT_SIZE;

__global__ void reduce(float* out, const float* in) {
  __shared__ float lanes[WarpSize];
  lanes[threadIdx.x % WarpSize] = tile_sum(in[threadIdx.x], 1.0f);
#ifdef __gfx1201__
  out[0] = lanes[0];
#else
  // the SPIR-V path: an MFMA builtin only CDNA GPUs have
  float4_t acc = {0, 0, 0, 0};
  acc = __builtin_amdgcn_mfma_f32_4x4x1f32(lanes[0], lanes[1], acc, 0, 0, 0);
  out[0] = acc[0];
#endif
}

__global__ void nop_wait(int* flag) {
  asm volatile("s_nop 0");
  flag[0] = 1;
}
