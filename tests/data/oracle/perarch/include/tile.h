#pragma once
// ... tested in another one.
#include "arch.h"

__device__ inline float tile_sum(float a, float b) {
#ifdef PERARCH_HAS_MFMA
  return a * b;
#else
  return a + b;
#endif
}
