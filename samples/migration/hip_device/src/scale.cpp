// x *= a over a grid-stride loop, templated on the element type.
#include "device.hpp"
#include "hipdev.hpp"

template <class T>
HIPDEV_KERNEL void hipdev_scale_kernel(T a, T* x, unsigned n) {
  for (unsigned i = hipdev::global_x(); i < n; i += __builtin_amdgcn_grid_size_x()) x[i] *= a;
}
template HIPDEV_KERNEL void hipdev_scale_kernel<float>(float, float*, unsigned);
template HIPDEV_KERNEL void hipdev_scale_kernel<double>(double, double*, unsigned);

extern "C" int hipdev_scale(double a, double* x, unsigned n, void* stream) {
  void* args[] = {&a, &x, &n};
  return hipLaunchKernel(reinterpret_cast<const void*>(&hipdev_scale_kernel<double>), dim3{64, 1, 1},
                         dim3{256, 1, 1}, args, 0, stream);
}
