// Histogram with per-block privatised bins in dynamic shared memory (LDS):
// LDS atomicAdd per element, then one global atomicAdd per non-empty bin.
#include <hip/hip_runtime.h>

#include "detail/block_primitives.h"
#include "detail/launch.h"
#include "hiplib/hiplib.h"

namespace hiplib {
namespace {

constexpr int kBlock = 256;

__device__ inline int bin_of(float v, float lo, float scale, int nbins) {
  const int b = static_cast<int>((v - lo) * scale);
  return b < nbins ? b : nbins - 1;  // rounding at the top edge
}

__global__ __launch_bounds__(kBlock) void histogram_kernel(int n, const float* __restrict__ x,
                                                           float lo, float hi, float scale,
                                                           int nbins,
                                                           unsigned int* __restrict__ bins) {
  extern __shared__ unsigned int local_bins[];
  for (int b = threadIdx.x; b < nbins; b += blockDim.x) local_bins[b] = 0u;
  __syncthreads();

  for (int i = detail::global_thread_id(); i < n; i += detail::grid_stride()) {
    const float v = x[i];
    if (v >= lo && v < hi) atomicAdd(&local_bins[bin_of(v, lo, scale, nbins)], 1u);
  }
  __syncthreads();

  for (int b = threadIdx.x; b < nbins; b += blockDim.x) {
    const unsigned int count = local_bins[b];
    if (count != 0u) atomicAdd(&bins[b], count);
  }
}

}  // namespace
}  // namespace hiplib

extern "C" hipError_t hiplib_histogram(int n, const float* x, float lo, float hi, int nbins,
                                       unsigned int* bins, hipStream_t stream) {
  using namespace hiplib;
  if (nbins < 1 || nbins > HIPLIB_HISTOGRAM_MAX_BINS || !(lo < hi) || bins == nullptr ||
      (n > 0 && x == nullptr))
    return hipErrorInvalidValue;
  hipError_t err = hipMemsetAsync(bins, 0, sizeof(unsigned int) * static_cast<size_t>(nbins), stream);
  if (err != hipSuccess || n <= 0) return err;
  const float scale = static_cast<float>(nbins) / (hi - lo);
  const size_t lds_bytes = sizeof(unsigned int) * static_cast<size_t>(nbins);
  hipLaunchKernelGGL(histogram_kernel, dim3(detail::grid_for(n, kBlock, 512)), dim3(kBlock),
                     static_cast<unsigned int>(lds_bytes), stream, n, x, lo, hi, scale, nbins, bins);
  return hipGetLastError();
}
