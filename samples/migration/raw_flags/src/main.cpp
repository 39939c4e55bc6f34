// Host-only driver (plain C++: CMAKE_CXX_FLAGS gives it an --offload-arch= that
// has no effect without -x hip). Without a GPU the launches fail and it says so.
#include <cstdio>

#include "raw.h"

int main() {
  int err = raw_saxpy(2.0f, nullptr, nullptr, 0, nullptr);
  err |= raw_dot_partial(nullptr, nullptr, nullptr, 0, nullptr);
  std::printf("raw_app: launch status %d\n", err);
  return 0;
}
