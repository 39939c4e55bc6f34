// Plain C++ (built by cc_binary with the host compiler) calling HIP kernels of :kernels.
#include <cstdio>

#include "kernels.h"

int main() {
  std::printf("saxpy launch status: %d\n", launch_saxpy(2.0f, nullptr, nullptr, 0));
  return 0;
}
