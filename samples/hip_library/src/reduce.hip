// Reductions: one kernel template over element type (float, double, int),
// block size (128, 256, 512), operator (Sum, Max) and per-element transform.
// Each block reduces in LDS and combines into *result with a global atomic:
// atomicAdd (float, double, int), atomicMax (int), a CAS loop (float max).
#include <hip/hip_runtime.h>

#include "detail/block_primitives.h"
#include "detail/launch.h"
#include "hiplib/hiplib.h"

namespace hiplib {
namespace {

struct Identity {
  template <typename T>
  __device__ T operator()(T v) const { return v; }
};

struct Square {
  __device__ float operator()(float v) const { return v * v; }
};

template <typename T>
__global__ void fill_kernel(T* dst, T value) {
  *dst = value;
}

__global__ void sqrt_kernel(float* v) { *v = sqrtf(*v); }

template <typename T, int BlockSize, typename Op, typename Xf>
__global__ __launch_bounds__(BlockSize) void reduce_kernel(int n, const T* __restrict__ x,
                                                           T* __restrict__ result) {
  const Op op{};
  const Xf xf{};
  T acc = Op::identity();
  for (int i = detail::global_thread_id(); i < n; i += detail::grid_stride()) acc = op(acc, xf(x[i]));
  acc = detail::block_reduce<BlockSize>(acc, op);
  if (threadIdx.x == 0) Op::atomic(result, acc);
}

template <typename T, int BlockSize, typename Op, typename Xf>
void launch_reduce(int n, const T* x, T* result, hipStream_t stream) {
  hipLaunchKernelGGL(HIP_KERNEL_NAME(reduce_kernel<T, BlockSize, Op, Xf>),
                     dim3(detail::grid_for(n, BlockSize, 1024)), dim3(BlockSize), 0, stream, n, x,
                     result);
}

// Small inputs get small blocks; large ones fewer, wider blocks.
template <typename T, typename Op, typename Xf = Identity>
hipError_t reduce(int n, const T* x, T* result, hipStream_t stream) {
  if (result == nullptr || (n > 0 && x == nullptr)) return hipErrorInvalidValue;
  hipLaunchKernelGGL(fill_kernel<T>, dim3(1), dim3(1), 0, stream, result, Op::identity());
  if (n > 0) {
    if (n < (1 << 14))
      launch_reduce<T, 128, Op, Xf>(n, x, result, stream);
    else if (n < (1 << 20))
      launch_reduce<T, 256, Op, Xf>(n, x, result, stream);
    else
      launch_reduce<T, 512, Op, Xf>(n, x, result, stream);
  }
  return hipGetLastError();
}

}  // namespace
}  // namespace hiplib

using hiplib::detail::Max;
using hiplib::detail::Sum;

extern "C" hipError_t hiplib_reduce_sum_f32(int n, const float* x, float* result,
                                            hipStream_t stream) {
  return hiplib::reduce<float, Sum<float>>(n, x, result, stream);
}

extern "C" hipError_t hiplib_reduce_sum_f64(int n, const double* x, double* result,
                                            hipStream_t stream) {
  return hiplib::reduce<double, Sum<double>>(n, x, result, stream);
}

extern "C" hipError_t hiplib_reduce_sum_i32(int n, const int* x, int* result, hipStream_t stream) {
  return hiplib::reduce<int, Sum<int>>(n, x, result, stream);
}

extern "C" hipError_t hiplib_reduce_max_f32(int n, const float* x, float* result,
                                            hipStream_t stream) {
  return hiplib::reduce<float, Max<float>>(n, x, result, stream);
}

extern "C" hipError_t hiplib_reduce_max_i32(int n, const int* x, int* result, hipStream_t stream) {
  return hiplib::reduce<int, Max<int>>(n, x, result, stream);
}

extern "C" hipError_t hiplib_nrm2_f32(int n, const float* x, float* result, hipStream_t stream) {
  hipError_t err = hiplib::reduce<float, Sum<float>, hiplib::Square>(n, x, result, stream);
  if (err != hipSuccess) return err;
  hiplib::sqrt_kernel<<<1, 1, 0, stream>>>(result);
  return hipGetLastError();
}
