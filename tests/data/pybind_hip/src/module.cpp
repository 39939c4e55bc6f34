// Host side: pybind11 bindings that call the HIP runtime API. Without an AMD GPU
// the runtime reports no device; with one, saxpy_device runs the kernels.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <stdexcept>
#include <string>
#include <vector>

#include "kernels.h"

namespace py = pybind11;

namespace {

int device_count() {
  int count = 0;
  if (hipGetDeviceCount(&count) != hipSuccess) return 0;
  return count;
}

void check(hipError_t err) {
  if (err != hipSuccess) throw std::runtime_error(std::string("HIP: ") + hipGetErrorString(err));
}

std::vector<float> saxpy_device(float a, const std::vector<float>& x, std::vector<float> y) {
  if (x.size() != y.size()) throw std::invalid_argument("x and y differ in length");
  const size_t bytes = x.size() * sizeof(float);
  float *dx = nullptr, *dy = nullptr;
  check(hipMalloc(&dx, bytes));
  check(hipMalloc(&dy, bytes));
  check(hipMemcpy(dx, x.data(), bytes, hipMemcpyHostToDevice));
  check(hipMemcpy(dy, y.data(), bytes, hipMemcpyHostToDevice));
  check(saxpy(static_cast<int>(x.size()), a, dx, dy));
  check(hipMemcpy(y.data(), dy, bytes, hipMemcpyDeviceToHost));
  check(hipFree(dx));
  check(hipFree(dy));
  return y;
}

}  // namespace

PYBIND11_MODULE(_core, m) {
  m.def("device_count", &device_count, "AMD GPUs the HIP runtime sees (0 without one)");
  m.def("saxpy_device", &saxpy_device, "y = a*x + y, then softplus(sin*cos), on the GPU");
}
