// Shared by every example: error checks and the "no GPU here" exit.
#pragma once

#include <hip/hip_runtime.h>

#include <cstdio>
#include <cstdlib>

#define HIP_CHECK(condition)                                                                 \
  do {                                                                                       \
    const hipError_t error_ = (condition);                                                   \
    if (error_ != hipSuccess) {                                                              \
      std::fprintf(stderr, "HIP error \"%s\" at %s:%d\n", hipGetErrorString(error_), __FILE__, \
                   __LINE__);                                                                \
      std::exit(1);                                                                          \
    }                                                                                        \
  } while (0)

// True when a HIP device is present; otherwise says so for `name` (the build is what matters then).
inline bool have_device(const char* name) {
  int count = 0;
  const hipError_t error = hipGetDeviceCount(&count);
  if (error != hipSuccess || count == 0) {
    std::printf("%s: no HIP device (%s); the kernels were built but not launched\n", name,
                hipGetErrorString(error));
    return false;
  }
  return true;
}

inline unsigned int ceiling_div(unsigned int dividend, unsigned int divisor) {
  return (dividend + divisor - 1) / divisor;
}
