// Warp- and block-level building blocks shared by the hiplib kernels.
//
// Wave size: AMD GPUs run 64-wide (CDNA, gfx9) or 32-wide (RDNA, gfx10+)
// wavefronts. Nothing here assumes either: every loop bound uses the runtime
// `warpSize`, which under --offload-arch=amdgcnspirv is only known when the
// SPIR-V is compiled for the GPU at load time. The only compile-time number is
// kMinWarpSize, used to size shared arrays for the worst case.
#ifndef HIPLIB_DETAIL_BLOCK_PRIMITIVES_H
#define HIPLIB_DETAIL_BLOCK_PRIMITIVES_H

#include <hip/hip_runtime.h>

#include <climits>

namespace hiplib {
namespace detail {

// Smallest wavefront on any AMD GPU: only for sizing __shared__ arrays.
constexpr int kMinWarpSize = 32;
// Largest wavefront: block sizes are multiples of it so every warp is full.
constexpr int kMaxWarpSize = 64;

// ---- binary operators with identity and the matching global atomic -------

template <typename T>
struct Sum {
  __host__ __device__ static T identity() { return T(0); }
  __device__ T operator()(T a, T b) const { return a + b; }
  // atomicAdd(float*), atomicAdd(double*), atomicAdd(int*)
  __device__ static void atomic(T* dst, T v) { atomicAdd(dst, v); }
};

// Compare-and-swap loop: a float max that works on every target, with no
// dependence on hardware float-max atomics.
__device__ inline float atomic_max_f32(float* address, float val) {
  int* iaddr = reinterpret_cast<int*>(address);
  int old = __hip_atomic_load(iaddr, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT);
  while (__int_as_float(old) < val) {
    const int assumed = old;
    old = atomicCAS(iaddr, assumed, __float_as_int(val));
    if (old == assumed) break;
  }
  return __int_as_float(old);
}

template <typename T>
struct Max;

template <>
struct Max<float> {
  __host__ __device__ static float identity() { return -__builtin_huge_valf(); }
  __device__ float operator()(float a, float b) const { return fmaxf(a, b); }
  __device__ static void atomic(float* dst, float v) { atomic_max_f32(dst, v); }
};

template <>
struct Max<int> {
  __host__ __device__ static int identity() { return INT_MIN; }
  __device__ int operator()(int a, int b) const { return a > b ? a : b; }
  __device__ static void atomic(int* dst, int v) { atomicMax(dst, v); }
};

// ---- warp level ----------------------------------------------------------

// Tree reduction with __shfl_down; the full result lands in lane 0.
template <typename T, typename Op>
__device__ inline T warp_reduce(T v, Op op) {
  for (int offset = warpSize / 2; offset > 0; offset /= 2) v = op(v, __shfl_down(v, offset));
  return v;
}

// Butterfly reduction with __shfl_xor; every lane ends with the result.
template <typename T, typename Op>
__device__ inline T warp_allreduce(T v, Op op) {
  for (int mask = warpSize / 2; mask > 0; mask /= 2) v = op(v, __shfl_xor(v, mask));
  return v;
}

// Inclusive prefix sum across a warp with __shfl_up.
template <typename T>
__device__ inline T warp_inclusive_scan(T v, int lane) {
  for (int delta = 1; delta < warpSize; delta *= 2) {
    const T up = __shfl_up(v, delta);
    if (lane >= delta) v += up;
  }
  return v;
}

// ---- block level ---------------------------------------------------------

// Result valid in thread 0 only. blockDim.x must be BlockSize.
template <int BlockSize, typename T, typename Op>
__device__ inline T block_reduce(T v, Op op) {
  static_assert(BlockSize % kMaxWarpSize == 0 && BlockSize <= 1024, "bad block size");
  __shared__ T partials[BlockSize / kMinWarpSize];
  const int lane = threadIdx.x % warpSize;
  const int wid = threadIdx.x / warpSize;
  const int nwarps = BlockSize / warpSize;  // <= warpSize for BlockSize <= 1024

  v = warp_reduce(v, op);
  if (lane == 0) partials[wid] = v;
  __syncthreads();
  if (wid == 0) {
    v = lane < nwarps ? partials[lane] : Op::identity();
    v = warp_reduce(v, op);
  }
  return v;
}

// Result valid in every thread. Safe to call repeatedly in one kernel.
template <int BlockSize, typename T, typename Op>
__device__ inline T block_allreduce(T v, Op op) {
  static_assert(BlockSize % kMaxWarpSize == 0 && BlockSize <= 1024, "bad block size");
  __shared__ T partials[BlockSize / kMinWarpSize];
  const int lane = threadIdx.x % warpSize;
  const int wid = threadIdx.x / warpSize;
  const int nwarps = BlockSize / warpSize;

  v = warp_allreduce(v, op);
  if (lane == 0) partials[wid] = v;
  __syncthreads();
  v = lane < nwarps ? partials[lane] : Op::identity();
  v = warp_allreduce(v, op);
  __syncthreads();  // partials may be rewritten by the next call
  return v;
}

// Inclusive block scan; *block_total receives the sum of the whole block.
template <int BlockSize, typename T>
__device__ inline T block_inclusive_scan(T v, T* block_total) {
  static_assert(BlockSize % kMaxWarpSize == 0 && BlockSize <= 1024, "bad block size");
  __shared__ T warp_sums[BlockSize / kMinWarpSize];
  const int lane = threadIdx.x % warpSize;
  const int wid = threadIdx.x / warpSize;
  const int nwarps = BlockSize / warpSize;

  v = warp_inclusive_scan(v, lane);
  if (lane == warpSize - 1) warp_sums[wid] = v;
  __syncthreads();
  if (wid == 0) {
    T w = lane < nwarps ? warp_sums[lane] : T(0);
    w = warp_inclusive_scan(w, lane);
    if (lane < nwarps) warp_sums[lane] = w;
  }
  __syncthreads();
  if (wid > 0) v += warp_sums[wid - 1];
  *block_total = warp_sums[nwarps - 1];
  return v;
}

// Grid-stride loop bounds.
__device__ inline int global_thread_id() { return blockIdx.x * blockDim.x + threadIdx.x; }
__device__ inline int grid_stride() { return blockDim.x * gridDim.x; }

}  // namespace detail
}  // namespace hiplib

#endif  // HIPLIB_DETAIL_BLOCK_PRIMITIVES_H
