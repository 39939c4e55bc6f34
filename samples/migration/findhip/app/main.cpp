// Host driver (plain C++). Without a GPU the launches fail and it says so.
#include <cstdio>

#include "fh.h"

extern "C" int fh_stencil(const float* in, float* out, unsigned n, void* stream);

int main() {
  int err = fh_saxpy(2.0f, nullptr, nullptr, 0, nullptr);
  err |= fh_sumsq(nullptr, nullptr, 0, nullptr);
  err |= fh_stencil(nullptr, nullptr, 0, nullptr);
  std::printf("fh_app: launch status %d\n", err);
  return 0;
}
