// Kernels the way a ROCm library writes them, with the HIP headers and the device
// libraries. The instantiations stand in for the many type/operator combinations a
// real library ships.
#include <hip/hip_runtime.h>

#include "hip_api.h"

#define DEMO_GLOBAL __attribute__((global))
#define DEMO_DEVICE __attribute__((device))

namespace {

DEMO_DEVICE inline unsigned global_x() {
  return __builtin_amdgcn_workgroup_id_x() * __builtin_amdgcn_workgroup_size_x() +
         __builtin_amdgcn_workitem_id_x();
}
DEMO_DEVICE inline unsigned stride_x() { return __builtin_amdgcn_workgroup_size_x() * 1024u; }

struct Add { template <class T> DEMO_DEVICE T operator()(T a, T b) const { return a + b; } };
struct Sub { template <class T> DEMO_DEVICE T operator()(T a, T b) const { return a - b; } };
struct Mul { template <class T> DEMO_DEVICE T operator()(T a, T b) const { return a * b; } };
struct Max { template <class T> DEMO_DEVICE T operator()(T a, T b) const { return a > b ? a : b; } };
struct Min { template <class T> DEMO_DEVICE T operator()(T a, T b) const { return a < b ? a : b; } };

}  // namespace

template <class T>
DEMO_GLOBAL void saxpy_kernel(T a, const T* x, T* y, unsigned n) {
  for (unsigned i = global_x(); i < n; i += stride_x()) y[i] = a * x[i] + y[i];
}

template <class T, class Op>
DEMO_GLOBAL void binary_kernel(const T* a, const T* b, T* out, unsigned n) {
  for (unsigned i = global_x(); i < n; i += stride_x()) out[i] = Op{}(a[i], b[i]);
}

// Block-wide tree reduction in LDS, one partial per block.
template <class T, class Op>
DEMO_GLOBAL void reduce_kernel(const T* in, T* partial, unsigned n, T init) {
  __attribute__((shared)) T tile[256];
  unsigned t = __builtin_amdgcn_workitem_id_x();
  T acc = init;
  for (unsigned i = global_x(); i < n; i += stride_x()) acc = Op{}(acc, in[i]);
  tile[t] = acc;
  for (unsigned s = 128; s > 0; s >>= 1) {
    __builtin_amdgcn_fence(__ATOMIC_RELEASE, "workgroup");
    __builtin_amdgcn_s_barrier();
    __builtin_amdgcn_fence(__ATOMIC_ACQUIRE, "workgroup");
    if (t < s) tile[t] = Op{}(tile[t], tile[t + s]);
  }
  if (t == 0) partial[__builtin_amdgcn_workgroup_id_x()] = tile[0];
}

#define DEMO_TYPE(T)                                                                 \
  template DEMO_GLOBAL void saxpy_kernel<T>(T, const T*, T*, unsigned);              \
  template DEMO_GLOBAL void binary_kernel<T, Add>(const T*, const T*, T*, unsigned); \
  template DEMO_GLOBAL void binary_kernel<T, Sub>(const T*, const T*, T*, unsigned); \
  template DEMO_GLOBAL void binary_kernel<T, Mul>(const T*, const T*, T*, unsigned); \
  template DEMO_GLOBAL void binary_kernel<T, Max>(const T*, const T*, T*, unsigned); \
  template DEMO_GLOBAL void binary_kernel<T, Min>(const T*, const T*, T*, unsigned); \
  template DEMO_GLOBAL void reduce_kernel<T, Add>(const T*, T*, unsigned, T);        \
  template DEMO_GLOBAL void reduce_kernel<T, Max>(const T*, T*, unsigned, T);        \
  template DEMO_GLOBAL void reduce_kernel<T, Min>(const T*, T*, unsigned, T);

DEMO_TYPE(float)
DEMO_TYPE(double)
DEMO_TYPE(int)
DEMO_TYPE(unsigned)
DEMO_TYPE(long long)
DEMO_TYPE(unsigned long long)

// The library-scale kernels, in this translation unit so the shared object carries one device
// entry per target (-DSPIRV_DEMO_LIBRARY_KERNELS=OFF builds the small kernels above alone).
#if SPIRV_DEMO_LIBRARY_KERNELS
#include "library_kernels.inc"
#endif

namespace spirv_demo {

hipError_t saxpy(float a, const float* x, float* y, size_t n, const char** what) {
  void* dx = nullptr;
  void* dy = nullptr;
  size_t bytes = n * sizeof(float);
  hipError_t err = hipSuccess;
  unsigned un = static_cast<unsigned>(n);
  void* args[] = {&a, &dx, &dy, &un};
  dim3 grid(static_cast<unsigned>((n + 255) / 256));
  dim3 block(256);
  if (grid.x > 1024) grid.x = 1024;
  if (grid.x == 0) grid.x = 1;
#define DEMO_TRY(call)   \
  do {                   \
    err = (call);        \
    if (err != hipSuccess) { \
      *what = #call;     \
      goto done;         \
    }                    \
  } while (0)
  DEMO_TRY(hipMalloc(&dx, bytes));
  DEMO_TRY(hipMalloc(&dy, bytes));
  DEMO_TRY(hipMemcpy(dx, x, bytes, hipMemcpyHostToDevice));
  DEMO_TRY(hipMemcpy(dy, y, bytes, hipMemcpyHostToDevice));
  DEMO_TRY(hipLaunchKernel(reinterpret_cast<const void*>(&saxpy_kernel<float>), grid, block, args, 0, nullptr));
  DEMO_TRY(hipDeviceSynchronize());
  DEMO_TRY(hipMemcpy(y, dy, bytes, hipMemcpyDeviceToHost));
#undef DEMO_TRY
done:
  if (dx) hipFree(dx);
  if (dy) hipFree(dy);
  return err;
}

}  // namespace spirv_demo
