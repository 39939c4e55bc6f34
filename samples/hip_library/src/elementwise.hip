// Elementwise kernels: axpy (templated on float/double), activations (one
// kernel template, a functor per activation), 2-D rotation with sincosf.
#include <hip/hip_runtime.h>

#include "detail/activations.h"
#include "detail/block_primitives.h"
#include "detail/launch.h"
#include "hiplib/hiplib.h"

namespace hiplib {
namespace {

constexpr int kBlock = 256;

template <typename T>
__global__ __launch_bounds__(kBlock) void axpy_kernel(int n, T alpha, const T* __restrict__ x,
                                                      T* __restrict__ y) {
  for (int i = detail::global_thread_id(); i < n; i += detail::grid_stride())
    y[i] = detail::fma_t(alpha, x[i], y[i]);
}

template <typename F>
__global__ __launch_bounds__(kBlock) void map_kernel(int n, const float* x, float* y, F f) {
  for (int i = detail::global_thread_id(); i < n; i += detail::grid_stride()) y[i] = f(x[i]);
}

__global__ __launch_bounds__(kBlock) void rotate2d_kernel(int n, const float* __restrict__ angle,
                                                          float* __restrict__ xs,
                                                          float* __restrict__ ys) {
  for (int i = detail::global_thread_id(); i < n; i += detail::grid_stride()) {
    float s, c;
    sincosf(angle[i], &s, &c);
    const float x = xs[i];
    const float y = ys[i];
    xs[i] = fmaf(c, x, -s * y);
    ys[i] = fmaf(s, x, c * y);
  }
}

template <typename T>
hipError_t axpy(int n, T alpha, const T* x, T* y, hipStream_t stream) {
  if (n <= 0) return hipSuccess;
  if (x == nullptr || y == nullptr) return hipErrorInvalidValue;
  hipLaunchKernelGGL(axpy_kernel<T>, dim3(detail::grid_for(n, kBlock)), dim3(kBlock), 0, stream, n,
                     alpha, x, y);
  return hipGetLastError();
}

template <typename F>
hipError_t map(int n, const float* x, float* y, F f, hipStream_t stream) {
  map_kernel<F><<<detail::grid_for(n, kBlock), kBlock, 0, stream>>>(n, x, y, f);
  return hipGetLastError();
}

}  // namespace
}  // namespace hiplib

extern "C" hipError_t hiplib_saxpy(int n, float alpha, const float* x, float* y,
                                   hipStream_t stream) {
  return hiplib::axpy<float>(n, alpha, x, y, stream);
}

extern "C" hipError_t hiplib_daxpy(int n, double alpha, const double* x, double* y,
                                   hipStream_t stream) {
  return hiplib::axpy<double>(n, alpha, x, y, stream);
}

extern "C" hipError_t hiplib_activation(hiplib_activation_t act, int n, const float* x, float* y,
                                        hipStream_t stream) {
  using namespace hiplib;
  if (n <= 0) return hipSuccess;
  if (x == nullptr || y == nullptr) return hipErrorInvalidValue;
  switch (act) {
    case HIPLIB_ACT_GELU_ERF: return map(n, x, y, detail::GeluErf{}, stream);
    case HIPLIB_ACT_GELU_TANH: return map(n, x, y, detail::GeluTanh{}, stream);
    case HIPLIB_ACT_SILU: return map(n, x, y, detail::Silu{}, stream);
    case HIPLIB_ACT_SOFTPLUS: return map(n, x, y, detail::Softplus{}, stream);
    case HIPLIB_ACT_MISH: return map(n, x, y, detail::Mish{}, stream);
  }
  return hipErrorInvalidValue;
}

extern "C" hipError_t hiplib_rotate2d(int n, const float* angle, float* xs, float* ys,
                                      hipStream_t stream) {
  using namespace hiplib;
  if (n <= 0) return hipSuccess;
  if (angle == nullptr || xs == nullptr || ys == nullptr) return hipErrorInvalidValue;
  hipLaunchKernelGGL(rotate2d_kernel, dim3(detail::grid_for(n, kBlock)), dim3(kBlock), 0, stream,
                     n, angle, xs, ys);
  return hipGetLastError();
}
