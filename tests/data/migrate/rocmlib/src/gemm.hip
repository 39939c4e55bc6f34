// gemm kernels: per-arch paths. Mentions of __gfx90a__ in comments are ignored.
#include <hip/hip_runtime.h>

enum class Arch { gfx90a, gfx942, other };

__device__ Arch current_arch() {
#if defined(__gfx90a__)
  return Arch::gfx90a;
#elif defined(__gfx942__)
  return Arch::gfx942;
#else
  return Arch::other;
#endif
}

constexpr int kWave = warpSize;
template <int W> __device__ int lanes() { return W; }

__global__ void k(float* x, int* y) {
  __shared__ float tile[warpSize];
  const char* s = "__gfx1100__ asm(\"s_nop 0\")";
  /* __GFX9__ inside a block comment */
  int v = __builtin_amdgcn_update_dpp(0, y[0], 0x142, 0xf, 0xf, false);
  if (__builtin_amdgcn_is_invocable(__builtin_amdgcn_mov_dpp)) {
    v += __builtin_amdgcn_mov_dpp(v, 0x142, 0xf, 0xf, false);
  }
  asm volatile("s_waitcnt vmcnt(0)" ::: "memory");
  x[0] = tile[0] + v + lanes<warpSize>() + __AMDGCN_WAVEFRONT_SIZE;
}

#if __has_builtin(__builtin_amdgcn_mfma_f32_32x32x8f16)
#define HAVE_MFMA 1
#endif
