// Device math used by the elementwise and softmax kernels. Every call here
// (expf, log1pf, erff, tanhf, powf, sqrtf, fmaf, ...) goes through HIP's
// math wrappers to the ROCm device library (ocml): linked into native code
// objects at build time, resolved when the runtime compiles the SPIR-V.
#ifndef HIPLIB_DETAIL_ACTIVATIONS_H
#define HIPLIB_DETAIL_ACTIVATIONS_H

#include <hip/hip_runtime.h>

namespace hiplib {
namespace detail {

__device__ inline float gelu_erf(float x) {
  constexpr float kInvSqrt2 = 0.70710678118654752440f;
  return 0.5f * x * (1.0f + erff(x * kInvSqrt2));
}

__device__ inline float gelu_tanh(float x) {
  constexpr float kTwoOverPi = 0.63661977236758134308f;
  const float inner = sqrtf(kTwoOverPi) * fmaf(0.044715f, powf(x, 3.0f), x);
  return 0.5f * x * (1.0f + tanhf(inner));
}

__device__ inline float silu(float x) { return x / (1.0f + expf(-x)); }

__device__ inline float softplus(float x) { return x > 20.0f ? x : log1pf(expf(x)); }

__device__ inline float mish(float x) { return x * tanhf(softplus(x)); }

// Functors, so one kernel template serves every activation.
struct GeluErf {
  __device__ float operator()(float x) const { return gelu_erf(x); }
};
struct GeluTanh {
  __device__ float operator()(float x) const { return gelu_tanh(x); }
};
struct Silu {
  __device__ float operator()(float x) const { return silu(x); }
};
struct Softplus {
  __device__ float operator()(float x) const { return softplus(x); }
};
struct Mish {
  __device__ float operator()(float x) const { return mish(x); }
};

// fma for the element type of a templated kernel.
__device__ inline float fma_t(float a, float b, float c) { return fmaf(a, b, c); }
__device__ inline double fma_t(double a, double b, double c) { return fma(a, b, c); }

}  // namespace detail
}  // namespace hiplib

#endif  // HIPLIB_DETAIL_ACTIVATIONS_H
