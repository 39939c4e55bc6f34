// Kernels shipped as a standalone code object (compiled device-only), found at
// run time with hipModuleLoad + hipModuleGetFunction("tp_scale") by name.
#include "../src/device.h"

extern "C" TP_KERNEL void tp_scale(float a, float* x, unsigned n) {
  unsigned i = tp_global_x();
  if (i < n) x[i] *= a;
}

extern "C" TP_KERNEL void tp_iota(unsigned* x, unsigned n) {
  unsigned i = tp_global_x();
  if (i < n) x[i] = i;
}
