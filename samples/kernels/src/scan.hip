// Inclusive block scans (Hillis-Steele) over several types and block sizes.
#include "rk/ops.h"

namespace rk {

template <class T, class Op, unsigned Block>
RK_GLOBAL void block_scan(const T* in, T* out, T* block_sums, unsigned n) {
  RK_SHARED T buf[2][Block];
  unsigned tid = thread_x();
  unsigned i = block_x() * Block + tid;
  unsigned src = 0;
  buf[0][tid] = i < n ? in[i] : Identity<Op>::template value<T>();
  sync_block();
#pragma unroll
  for (unsigned off = 1; off < Block; off <<= 1) {
    T v = buf[src][tid];
    if (tid >= off) v = Op{}(buf[src][tid - off], v);
    buf[1 - src][tid] = v;
    src = 1 - src;
    sync_block();
  }
  if (i < n) out[i] = buf[src][tid];
  if (tid == Block - 1) block_sums[block_x()] = buf[src][tid];
}

template <class T>
RK_GLOBAL void add_block_offsets(T* out, const T* offsets, unsigned n, unsigned block) {
  unsigned i = global_x();
  if (i < n && i >= block) out[i] += offsets[i / block - 1];
}

#define RK_SCAN(T, B) template RK_GLOBAL void block_scan<T, Add, B>(const T*, T*, T*, unsigned);
RK_SCAN(float, 128)
RK_SCAN(float, 256)
RK_SCAN(float, 512)
RK_SCAN(double, 256)
RK_SCAN(int, 128)
RK_SCAN(int, 256)
RK_SCAN(int, 512)
RK_SCAN(unsigned, 256)
RK_SCAN(long, 256)
template RK_GLOBAL void add_block_offsets<float>(float*, const float*, unsigned, unsigned);
template RK_GLOBAL void add_block_offsets<int>(int*, const int*, unsigned, unsigned);

}  // namespace rk
