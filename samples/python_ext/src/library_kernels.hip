// Library-style kernels (opt-in: -C cmake.define.SPIRV_DEMO_LIBRARY_KERNELS=ON), shaped like
// what rocBLAS / rocPRIM ship: compile-time tile and items-per-thread parameters, register
// blocking and `#pragma unroll` loops, each instantiated for several types and tile configs.
// For a gfx* target clang -O3 unrolls these into straight-line ISA per architecture; the
// amdgcnspirv module keeps the loops (upstream clang emits it from unoptimised IR and the
// runtime's JIT optimises for the GPU it runs on). Builtins only, like kernels.hip, so the
// same source builds for every gfx* and for amdgcnspirv with no ROCm headers.
#include "hip_api.h"

#define LIB_GLOBAL __attribute__((global))
#define LIB_DEVICE __attribute__((device))
#define LIB_SHARED __attribute__((shared))

namespace {

constexpr unsigned kBlock = 256;  // threads per block for every kernel below

LIB_DEVICE inline unsigned tid() { return __builtin_amdgcn_workitem_id_x(); }
LIB_DEVICE inline unsigned bid() { return __builtin_amdgcn_workgroup_id_x(); }
LIB_DEVICE inline void sync_block() {
  __builtin_amdgcn_fence(__ATOMIC_RELEASE, "workgroup");
  __builtin_amdgcn_s_barrier();
  __builtin_amdgcn_fence(__ATOMIC_ACQUIRE, "workgroup");
}

struct Sum { template <class T> LIB_DEVICE T operator()(T a, T b) const { return a + b; } };
struct Largest { template <class T> LIB_DEVICE T operator()(T a, T b) const { return a > b ? a : b; } };
struct Smallest { template <class T> LIB_DEVICE T operator()(T a, T b) const { return a < b ? a : b; } };

}  // namespace

// C = alpha * A * B + beta * C, row-major, a 16x16 thread block computing a (16*TM) x (16*TN)
// tile of C with a TM x TN register tile per thread and TK-deep LDS panels.
template <class T, int TM, int TN, int TK>
LIB_GLOBAL void gemm_kernel(const T* a, const T* b, T* c, unsigned m, unsigned n, unsigned k,
                            T alpha, T beta) {
  constexpr int BM = 16 * TM, BN = 16 * TN;
  LIB_SHARED T as[TK][BM];
  LIB_SHARED T bs[TK][BN];
  const unsigned t = tid(), tx = t % 16, ty = t / 16;
  const unsigned blocks_n = (n + BN - 1) / BN;
  const unsigned row0 = (bid() / blocks_n) * BM, col0 = (bid() % blocks_n) * BN;
  T acc[TM][TN];
#pragma unroll
  for (int i = 0; i < TM; ++i)
#pragma unroll
    for (int j = 0; j < TN; ++j) acc[i][j] = T(0);
  for (unsigned k0 = 0; k0 < k; k0 += TK) {
#pragma unroll
    for (int e = 0; e < (BM * TK + kBlock - 1) / kBlock; ++e) {
      unsigned idx = e * kBlock + t;
      if (idx < unsigned(BM * TK)) {
        unsigned r = idx / TK, kk = idx % TK;
        unsigned gr = row0 + r, gk = k0 + kk;
        as[kk][r] = (gr < m && gk < k) ? a[gr * k + gk] : T(0);
      }
    }
#pragma unroll
    for (int e = 0; e < (BN * TK + kBlock - 1) / kBlock; ++e) {
      unsigned idx = e * kBlock + t;
      if (idx < unsigned(BN * TK)) {
        unsigned kk = idx / BN, col = idx % BN;
        unsigned gk = k0 + kk, gc = col0 + col;
        bs[kk][col] = (gk < k && gc < n) ? b[gk * n + gc] : T(0);
      }
    }
    sync_block();
#pragma unroll
    for (int kk = 0; kk < TK; ++kk) {
      T ra[TM], rb[TN];
#pragma unroll
      for (int i = 0; i < TM; ++i) ra[i] = as[kk][ty * TM + i];
#pragma unroll
      for (int j = 0; j < TN; ++j) rb[j] = bs[kk][tx * TN + j];
#pragma unroll
      for (int i = 0; i < TM; ++i)
#pragma unroll
        for (int j = 0; j < TN; ++j) acc[i][j] += ra[i] * rb[j];
    }
    sync_block();
  }
#pragma unroll
  for (int i = 0; i < TM; ++i)
#pragma unroll
    for (int j = 0; j < TN; ++j) {
      unsigned r = row0 + ty * TM + i, col = col0 + tx * TN + j;
      if (r < m && col < n) c[r * n + col] = alpha * acc[i][j] + beta * c[r * n + col];
    }
}

// One partial per block: IPT items per thread, reduced in registers, then an unrolled LDS tree.
template <class T, class Op, int IPT>
LIB_GLOBAL void block_reduce_kernel(const T* in, T* partial, unsigned n, T init) {
  LIB_SHARED T tile[kBlock];
  const unsigned t = tid(), base = bid() * kBlock * IPT;
  T acc = init;
#pragma unroll
  for (int i = 0; i < IPT; ++i) {
    unsigned idx = base + i * kBlock + t;
    acc = Op{}(acc, idx < n ? in[idx] : init);
  }
  tile[t] = acc;
  sync_block();
#pragma unroll
  for (unsigned s = kBlock / 2; s > 0; s >>= 1) {
    if (t < s) tile[t] = Op{}(tile[t], tile[t + s]);
    sync_block();
  }
  if (t == 0) partial[bid()] = tile[0];
}

// Inclusive scan of kBlock * IPT items per block (blocked arrangement): a serial scan of each
// thread's items, an unrolled Hillis-Steele scan of the thread totals in LDS, then the fix-up.
template <class T, int IPT>
LIB_GLOBAL void block_scan_kernel(const T* in, T* out, unsigned n) {
  LIB_SHARED T totals[kBlock];
  const unsigned t = tid(), base = bid() * kBlock * IPT + t * IPT;
  T items[IPT];
#pragma unroll
  for (int i = 0; i < IPT; ++i) items[i] = base + i < n ? in[base + i] : T(0);
#pragma unroll
  for (int i = 1; i < IPT; ++i) items[i] += items[i - 1];
  totals[t] = items[IPT - 1];
  sync_block();
#pragma unroll
  for (unsigned d = 1; d < kBlock; d <<= 1) {
    T add = t >= d ? totals[t - d] : T(0);
    sync_block();
    totals[t] += add;
    sync_block();
  }
  T prefix = t > 0 ? totals[t - 1] : T(0);
#pragma unroll
  for (int i = 0; i < IPT; ++i)
    if (base + i < n) out[base + i] = items[i] + prefix;
}

// Bitonic sort of kBlock * IPT keys per block in LDS (ascending), padded with the largest key.
template <class T, int IPT>
LIB_GLOBAL void block_sort_kernel(T* keys, unsigned n, T pad) {
  constexpr unsigned kItems = kBlock * IPT;
  LIB_SHARED T tile[kItems];
  const unsigned t = tid(), base = bid() * kItems;
#pragma unroll
  for (int i = 0; i < IPT; ++i) {
    unsigned idx = i * kBlock + t;
    tile[idx] = base + idx < n ? keys[base + idx] : pad;
  }
  sync_block();
#pragma unroll
  for (unsigned size = 2; size <= kItems; size <<= 1) {
#pragma unroll
    for (unsigned stride = size / 2; stride > 0; stride >>= 1) {
#pragma unroll
      for (int i = 0; i < IPT / 2; ++i) {
        unsigned pair = i * kBlock + t;  // kItems / 2 compare-exchanges per step
        unsigned lo = 2 * stride * (pair / stride) + pair % stride, hi = lo + stride;
        bool up = (lo & size) == 0;
        T x = tile[lo], y = tile[hi];
        if ((x > y) == up) {
          tile[lo] = y;
          tile[hi] = x;
        }
      }
      sync_block();
    }
  }
#pragma unroll
  for (int i = 0; i < IPT; ++i) {
    unsigned idx = i * kBlock + t;
    if (base + idx < n) keys[base + idx] = tile[idx];
  }
}

#define LIB_GEMM(T)                                                                                  \
  template LIB_GLOBAL void gemm_kernel<T, 8, 8, 16>(const T*, const T*, T*, unsigned, unsigned,     \
                                                   unsigned, T, T);                                 \
  template LIB_GLOBAL void gemm_kernel<T, 4, 4, 16>(const T*, const T*, T*, unsigned, unsigned,     \
                                                    unsigned, T, T);
#define LIB_PRIMITIVES(T)                                                                   \
  template LIB_GLOBAL void block_reduce_kernel<T, Sum, 8>(const T*, T*, unsigned, T);      \
  template LIB_GLOBAL void block_reduce_kernel<T, Largest, 8>(const T*, T*, unsigned, T);  \
  template LIB_GLOBAL void block_reduce_kernel<T, Smallest, 8>(const T*, T*, unsigned, T); \
  template LIB_GLOBAL void block_scan_kernel<T, 8>(const T*, T*, unsigned);                \
  template LIB_GLOBAL void block_sort_kernel<T, 4>(T*, unsigned, T);

LIB_GEMM(float)
LIB_GEMM(double)
LIB_PRIMITIVES(float)
LIB_PRIMITIVES(double)
LIB_PRIMITIVES(int)
LIB_PRIMITIVES(unsigned)
LIB_PRIMITIVES(long long)
LIB_PRIMITIVES(unsigned long long)
