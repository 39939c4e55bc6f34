// y = a*x + b*y for float and double, launched through the library's host API.
#include "device.h"

template <class T>
TP_KERNEL void tp_axpby_kernel(T a, const T* x, T b, T* y, unsigned n) {
  unsigned i = tp_global_x();
  if (i < n) y[i] = a * x[i] + b * y[i];
}
template TP_KERNEL void tp_axpby_kernel<float>(float, const float*, float, float*, unsigned);
template TP_KERNEL void tp_axpby_kernel<double>(double, const double*, double, double*, unsigned);

extern "C" int tp_axpby(float a, const float* x, float b, float* y, unsigned n, void* stream) {
  void* args[] = {&a, &x, &b, &y, &n};
  return hipLaunchKernel(reinterpret_cast<const void*>(&tp_axpby_kernel<float>), dim3{(n + 255) / 256, 1, 1},
                         dim3{256, 1, 1}, args, 0, stream);
}
