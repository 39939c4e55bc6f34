// Block reductions in shared memory, one instantiation per type, operator and block size.
#include "rk/ops.h"

namespace rk {

template <class T, class Op, unsigned Block>
RK_GLOBAL void block_reduce(const T* in, T* partial, unsigned n) {
  RK_SHARED T tile[Block];
  unsigned tid = thread_x();
  T acc = Identity<Op>::template value<T>();
  for (unsigned i = block_x() * Block + tid; i < n; i += Block * 1024u) acc = Op{}(acc, in[i]);
  tile[tid] = acc;
  sync_block();
#pragma unroll
  for (unsigned s = Block / 2; s > 0; s >>= 1) {
    if (tid < s) tile[tid] = Op{}(tile[tid], tile[tid + s]);
    sync_block();
  }
  if (tid == 0) partial[block_x()] = tile[0];
}

#define RK_REDUCE(T, B)                                                       \
  template RK_GLOBAL void block_reduce<T, Add, B>(const T*, T*, unsigned); \
  template RK_GLOBAL void block_reduce<T, Mul, B>(const T*, T*, unsigned);

RK_REDUCE(float, 64)
RK_REDUCE(float, 128)
RK_REDUCE(float, 256)
RK_REDUCE(float, 512)
RK_REDUCE(double, 64)
RK_REDUCE(double, 128)
RK_REDUCE(double, 256)
RK_REDUCE(double, 512)
RK_REDUCE(int, 128)
RK_REDUCE(int, 256)
RK_REDUCE(long, 256)
RK_REDUCE(unsigned, 256)

}  // namespace rk
