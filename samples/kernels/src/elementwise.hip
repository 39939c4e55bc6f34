// Elementwise maps: several operators times several element types, the way
// a library instantiates one template per supported combination.
#include "rk/ops.h"

namespace rk {

template <class T, class Op>
RK_GLOBAL void binary_map(const T* a, const T* b, T* out, unsigned n) {
  unsigned i = global_x();
  if (i < n) out[i] = Op{}(a[i], b[i]);
}

template <class T>
RK_GLOBAL void axpby(T alpha, const T* x, T beta, T* y, unsigned n) {
  for (unsigned i = global_x(); i < n; i += block_dim_x() * 1024u) y[i] = alpha * x[i] + beta * y[i];
}

template <class T>
RK_GLOBAL void clamp(T* x, T lo, T hi, unsigned n) {
  unsigned i = global_x();
  if (i < n) x[i] = x[i] < lo ? lo : (x[i] > hi ? hi : x[i]);
}

#define RK_BINARY(T)                                                 \
  template RK_GLOBAL void binary_map<T, Add>(const T*, const T*, T*, unsigned); \
  template RK_GLOBAL void binary_map<T, Mul>(const T*, const T*, T*, unsigned); \
  template RK_GLOBAL void binary_map<T, Max>(const T*, const T*, T*, unsigned); \
  template RK_GLOBAL void binary_map<T, Min>(const T*, const T*, T*, unsigned); \
  template RK_GLOBAL void axpby<T>(T, const T*, T, T*, unsigned);               \
  template RK_GLOBAL void clamp<T>(T*, T, T, unsigned);

RK_BINARY(float)
RK_BINARY(double)
RK_BINARY(int)
RK_BINARY(unsigned)
RK_BINARY(long)
RK_BINARY(short)

}  // namespace rk
