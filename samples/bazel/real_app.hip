// A runtime-API program: on a machine without an AMD GPU it says so and exits 0.
#include <cstdio>

#include "real.h"

int main() {
  int count = 0;
  hipError_t err = hipGetDeviceCount(&count);
  if (err != hipSuccess || count == 0) {
    std::printf("real_app: no AMD GPU (%s)\n", hipGetErrorString(err));
    return 0;
  }
  hipDeviceProp_t prop;
  if (hipGetDeviceProperties(&prop, 0) != hipSuccess) return 1;
  std::printf("real_app: %s (%s), warpSize %d\n", prop.name, prop.gcnArchName, prop.warpSize);
  return real_softplus(nullptr, nullptr, 0) == hipSuccess ? 0 : 1;
}
