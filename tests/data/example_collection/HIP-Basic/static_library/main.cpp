// Host code only: calls into the static library, which carries the device code.
#include "saxpy_library.hpp"

#include <cstdio>
#include <vector>

int main() {
  constexpr unsigned int size = 4096;
  std::vector<float> x(size, 2.f), y(size, 1.f);
  const int rc = example::saxpy_on_device(3.f, x.data(), y.data(), size);
  if (rc == 1) {
    std::printf("hip_static_library: no HIP device; the kernels were built but not launched\n");
    return 0;
  }
  if (rc != 0 || example::scale_on_device(0.5f, y.data(), size) != 0) return 1;
  unsigned int errors = 0;
  for (float v : y) errors += v != 3.5f;
  std::printf("hip_static_library: %u mismatches\n", errors);
  return errors == 0 ? 0 : 1;
}
