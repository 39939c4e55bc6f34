// Inclusive prefix sum, the classic three-phase way: scan each block (warp
// scans with __shfl_up, then a scan of the per-warp totals), scan the block
// totals (recursively), add each block's offset.
#include <hip/hip_runtime.h>

#include "detail/block_primitives.h"
#include "hiplib/hiplib.h"

namespace hiplib {
namespace {

constexpr int kBlock = 256;

template <typename T, int BlockSize>
__global__ __launch_bounds__(BlockSize) void scan_blocks_kernel(int n, const T* x, T* y,
                                                                T* block_sums) {
  const int i = blockIdx.x * BlockSize + threadIdx.x;
  T v = i < n ? x[i] : T(0);
  T total;
  v = detail::block_inclusive_scan<BlockSize>(v, &total);
  if (i < n) y[i] = v;
  if (block_sums != nullptr && threadIdx.x == 0) block_sums[blockIdx.x] = total;
}

template <typename T, int BlockSize>
__global__ __launch_bounds__(BlockSize) void add_offsets_kernel(int n, T* y,
                                                                const T* __restrict__ scanned) {
  if (blockIdx.x == 0) return;
  const T offset = scanned[blockIdx.x - 1];
  const int i = blockIdx.x * BlockSize + threadIdx.x;
  if (i < n) y[i] += offset;
}

// x and y may alias: each element is read and written by the same thread.
template <typename T>
hipError_t scan_inclusive(int n, const T* x, T* y, hipStream_t stream) {
  const int nblocks = (n + kBlock - 1) / kBlock;
  if (nblocks == 1) {
    hipLaunchKernelGGL(HIP_KERNEL_NAME(scan_blocks_kernel<T, kBlock>), dim3(1), dim3(kBlock), 0,
                       stream, n, x, y, static_cast<T*>(nullptr));
    return hipGetLastError();
  }
  T* block_sums = nullptr;
  hipError_t err = hipMalloc(&block_sums, sizeof(T) * static_cast<size_t>(nblocks));
  if (err != hipSuccess) return err;
  scan_blocks_kernel<T, kBlock><<<nblocks, kBlock, 0, stream>>>(n, x, y, block_sums);
  err = hipGetLastError();
  if (err == hipSuccess) err = scan_inclusive<T>(nblocks, block_sums, block_sums, stream);
  if (err == hipSuccess) {
    add_offsets_kernel<T, kBlock><<<nblocks, kBlock, 0, stream>>>(n, y, block_sums);
    err = hipGetLastError();
  }
  // hipFree waits for the device, so the kernels above are done with block_sums.
  const hipError_t free_err = hipFree(block_sums);
  return err != hipSuccess ? err : free_err;
}

template <typename T>
hipError_t scan_checked(int n, const T* x, T* y, hipStream_t stream) {
  if (n <= 0) return hipSuccess;
  if (x == nullptr || y == nullptr) return hipErrorInvalidValue;
  return scan_inclusive<T>(n, x, y, stream);
}

}  // namespace
}  // namespace hiplib

extern "C" hipError_t hiplib_scan_inclusive_i32(int n, const int* x, int* y, hipStream_t stream) {
  return hiplib::scan_checked<int>(n, x, y, stream);
}

extern "C" hipError_t hiplib_scan_inclusive_f32(int n, const float* x, float* y,
                                                hipStream_t stream) {
  return hiplib::scan_checked<float>(n, x, y, stream);
}
