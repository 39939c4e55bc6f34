// Row softmax / log-softmax: one block per row, two block all-reductions
// (max with __shfl_xor butterflies, then the sum of exp), templated on the
// block size and on the output form.
#include <hip/hip_runtime.h>

#include "detail/block_primitives.h"
#include "hiplib/hiplib.h"

namespace hiplib {
namespace {

template <int BlockSize, bool Log>
__global__ __launch_bounds__(BlockSize) void softmax_kernel(int cols, const float* __restrict__ x,
                                                            float* __restrict__ y) {
  const size_t offset = static_cast<size_t>(blockIdx.x) * static_cast<size_t>(cols);
  const float* row = x + offset;
  float* out = y + offset;

  float m = detail::Max<float>::identity();
  for (int c = threadIdx.x; c < cols; c += BlockSize) m = fmaxf(m, row[c]);
  m = detail::block_allreduce<BlockSize>(m, detail::Max<float>{});

  float s = 0.0f;
  for (int c = threadIdx.x; c < cols; c += BlockSize) s += expf(row[c] - m);
  s = detail::block_allreduce<BlockSize>(s, detail::Sum<float>{});

  if (Log) {
    const float lse = logf(s);
    for (int c = threadIdx.x; c < cols; c += BlockSize) out[c] = row[c] - m - lse;
  } else {
    const float inv = 1.0f / s;
    for (int c = threadIdx.x; c < cols; c += BlockSize) out[c] = expf(row[c] - m) * inv;
  }
}

template <bool Log>
hipError_t softmax(int rows, int cols, const float* x, float* y, hipStream_t stream) {
  if (rows <= 0 || cols <= 0) return hipSuccess;
  if (x == nullptr || y == nullptr) return hipErrorInvalidValue;
  const dim3 grid(static_cast<unsigned int>(rows));
  if (cols <= 128) {
    softmax_kernel<128, Log><<<grid, 128, 0, stream>>>(cols, x, y);
  } else if (cols <= 1024) {
    softmax_kernel<256, Log><<<grid, 256, 0, stream>>>(cols, x, y);
  } else {
    softmax_kernel<512, Log><<<grid, 512, 0, stream>>>(cols, x, y);
  }
  return hipGetLastError();
}

}  // namespace
}  // namespace hiplib

extern "C" hipError_t hiplib_softmax(int rows, int cols, const float* x, float* y,
                                     hipStream_t stream) {
  return hiplib::softmax<false>(rows, cols, x, y, stream);
}

extern "C" hipError_t hiplib_log_softmax(int rows, int cols, const float* x, float* y,
                                         hipStream_t stream) {
  return hiplib::softmax<true>(rows, cols, x, y, stream);
}
