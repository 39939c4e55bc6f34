// Tiled GEMM C = alpha*A*B + beta*C with shared-memory tiles, for several tile shapes.
#include "rk/device.h"

namespace rk {

template <class T, unsigned Tile, unsigned Work>
RK_GLOBAL void gemm_tiled(const T* A, const T* B, T* C, unsigned M, unsigned N, unsigned K,
                          T alpha, T beta) {
  RK_SHARED T As[Tile][Tile + 1];
  RK_SHARED T Bs[Tile][Tile + 1];
  unsigned tx = thread_x(), ty = thread_y();
  unsigned row = block_y() * Tile + ty * Work;
  unsigned col = block_x() * Tile + tx;
  T acc[Work] = {};
  for (unsigned k0 = 0; k0 < K; k0 += Tile) {
#pragma unroll
    for (unsigned w = 0; w < Work; ++w) {
      unsigned r = ty * Work + w;
      As[r][tx] = (block_y() * Tile + r < M && k0 + tx < K) ? A[(block_y() * Tile + r) * K + k0 + tx] : T(0);
      Bs[r][tx] = (k0 + r < K && col < N) ? B[(k0 + r) * N + col] : T(0);
    }
    sync_block();
#pragma unroll
    for (unsigned k = 0; k < Tile; ++k) {
      T b = Bs[k][tx];
#pragma unroll
      for (unsigned w = 0; w < Work; ++w) acc[w] += As[ty * Work + w][k] * b;
    }
    sync_block();
  }
#pragma unroll
  for (unsigned w = 0; w < Work; ++w)
    if (row + w < M && col < N) C[(row + w) * N + col] = alpha * acc[w] + beta * C[(row + w) * N + col];
}

template RK_GLOBAL void gemm_tiled<float, 16, 1>(const float*, const float*, float*, unsigned, unsigned, unsigned, float, float);
template RK_GLOBAL void gemm_tiled<float, 16, 4>(const float*, const float*, float*, unsigned, unsigned, unsigned, float, float);
template RK_GLOBAL void gemm_tiled<float, 32, 4>(const float*, const float*, float*, unsigned, unsigned, unsigned, float, float);
template RK_GLOBAL void gemm_tiled<float, 32, 8>(const float*, const float*, float*, unsigned, unsigned, unsigned, float, float);
template RK_GLOBAL void gemm_tiled<double, 16, 4>(const double*, const double*, double*, unsigned, unsigned, unsigned, double, double);
template RK_GLOBAL void gemm_tiled<double, 32, 4>(const double*, const double*, double*, unsigned, unsigned, unsigned, double, double);

}  // namespace rk
