/*
 * hiplib: a small HIP kernel library with a C host API.
 *
 * Every function enqueues work on `stream` (0 = the null stream) and returns
 * the first HIP error it saw, or hipSuccess. All pointers are device pointers.
 * Nothing here depends on the GPU architecture: the same sources build for
 * per-arch gfx code objects and for one amdgcnspirv (SPIR-V) binary.
 */
#ifndef HIPLIB_HIPLIB_H
#define HIPLIB_HIPLIB_H

#include <hip/hip_runtime_api.h>

#define HIPLIB_VERSION_MAJOR 0
#define HIPLIB_VERSION_MINOR 1
#define HIPLIB_VERSION_PATCH 0

/* Largest bin count hiplib_histogram accepts (the bins live in LDS). */
#define HIPLIB_HISTOGRAM_MAX_BINS 8192

#ifdef __cplusplus
extern "C" {
#endif

typedef enum hiplib_activation_t {
  HIPLIB_ACT_GELU_ERF = 0,  /* 0.5 x (1 + erf(x / sqrt 2))                      */
  HIPLIB_ACT_GELU_TANH = 1, /* 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))  */
  HIPLIB_ACT_SILU = 2,      /* x / (1 + exp(-x))                                 */
  HIPLIB_ACT_SOFTPLUS = 3,  /* log(1 + exp(x)), linear above 20                  */
  HIPLIB_ACT_MISH = 4       /* x tanh(softplus(x))                               */
} hiplib_activation_t;

/* ---- elementwise (src/elementwise.hip) ---------------------------------- */

/* y[i] = alpha * x[i] + y[i] */
hipError_t hiplib_saxpy(int n, float alpha, const float* x, float* y, hipStream_t stream);
hipError_t hiplib_daxpy(int n, double alpha, const double* x, double* y, hipStream_t stream);

/* y[i] = act(x[i]); x and y may alias. */
hipError_t hiplib_activation(hiplib_activation_t act, int n, const float* x, float* y,
                             hipStream_t stream);

/* Rotates each point (xs[i], ys[i]) by angle[i] radians, in place. */
hipError_t hiplib_rotate2d(int n, const float* angle, float* xs, float* ys, hipStream_t stream);

/* ---- softmax (src/softmax.hip): row-major rows x cols ------------------- */

hipError_t hiplib_softmax(int rows, int cols, const float* x, float* y, hipStream_t stream);
hipError_t hiplib_log_softmax(int rows, int cols, const float* x, float* y, hipStream_t stream);

/* ---- reductions (src/reduce.hip): *result is overwritten ---------------- */

hipError_t hiplib_reduce_sum_f32(int n, const float* x, float* result, hipStream_t stream);
hipError_t hiplib_reduce_sum_f64(int n, const double* x, double* result, hipStream_t stream);
hipError_t hiplib_reduce_sum_i32(int n, const int* x, int* result, hipStream_t stream);
/* max of an empty input is -inf (f32) or INT_MIN (i32) */
hipError_t hiplib_reduce_max_f32(int n, const float* x, float* result, hipStream_t stream);
hipError_t hiplib_reduce_max_i32(int n, const int* x, int* result, hipStream_t stream);
/* Euclidean norm sqrt(sum x[i]^2) */
hipError_t hiplib_nrm2_f32(int n, const float* x, float* result, hipStream_t stream);

/* ---- histogram (src/histogram.hip) -------------------------------------- */

/* nbins equal-width bins over [lo, hi); values outside are ignored. bins[] is
 * zeroed first. 1 <= nbins <= HIPLIB_HISTOGRAM_MAX_BINS and lo < hi. */
hipError_t hiplib_histogram(int n, const float* x, float lo, float hi, int nbins,
                            unsigned int* bins, hipStream_t stream);

/* ---- scan (src/scan.hip): inclusive prefix sum, y may alias x ----------- */

hipError_t hiplib_scan_inclusive_i32(int n, const int* x, int* y, hipStream_t stream);
hipError_t hiplib_scan_inclusive_f32(int n, const float* x, float* y, hipStream_t stream);

#ifdef __cplusplus
}
#endif

#endif /* HIPLIB_HIPLIB_H */
