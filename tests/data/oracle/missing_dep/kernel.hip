#include <hip/hip_runtime.h>

__global__ void k(int* o) {
#if defined(__gfx90a__)
  o[0] = 1;
#endif
}
