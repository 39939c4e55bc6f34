// Host-side launch helpers shared by the hiplib sources.
#ifndef HIPLIB_DETAIL_LAUNCH_H
#define HIPLIB_DETAIL_LAUNCH_H

#include <hip/hip_runtime.h>

namespace hiplib {
namespace detail {

// Grid for a grid-stride loop: enough blocks to cover n, capped so huge
// inputs loop instead of launching millions of blocks.
inline unsigned int grid_for(int n, int block, int max_blocks = 4096) {
  const int blocks = (n + block - 1) / block;
  return static_cast<unsigned int>(blocks < max_blocks ? (blocks > 0 ? blocks : 1) : max_blocks);
}

}  // namespace detail
}  // namespace hiplib

#endif  // HIPLIB_DETAIL_LAUNCH_H
