// The CPython C API side of spirv_demo._core: device_count() and saxpy().
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <vector>

#include "hip_api.h"

namespace {

PyObject* NoDeviceError = nullptr;
constexpr hipError_t kNoDevice = hipErrorNoDevice;

// Raises NoDeviceError (no AMD GPU or driver) or RuntimeError for other HIP errors.
PyObject* hip_error(hipError_t err, const char* what) {
  const char* name = hipGetErrorName(err);
  const char* text = hipGetErrorString(err);
  if (err == kNoDevice) {
    PyErr_Format(NoDeviceError, "no AMD GPU is available (%s from %s: %s)", name, what, text);
  } else {
    PyErr_Format(PyExc_RuntimeError, "HIP error %s from %s: %s", name, what, text);
  }
  return nullptr;
}

PyObject* device_count(PyObject*, PyObject*) {
  int n = 0;
  hipError_t err = hipGetDeviceCount(&n);
  if (err == kNoDevice) return PyLong_FromLong(0);
  if (err != hipSuccess) return hip_error(err, "hipGetDeviceCount");
  return PyLong_FromLong(n);
}

// saxpy(a, x, y) -> list: a*x + y on the GPU.
PyObject* saxpy(PyObject*, PyObject* args) {
  float a = 0;
  PyObject* xs = nullptr;
  PyObject* ys = nullptr;
  if (!PyArg_ParseTuple(args, "fOO", &a, &xs, &ys)) return nullptr;
  PyObject* xf = PySequence_Fast(xs, "x must be a sequence of floats");
  if (!xf) return nullptr;
  PyObject* yf = PySequence_Fast(ys, "y must be a sequence of floats");
  if (!yf) {
    Py_DECREF(xf);
    return nullptr;
  }
  Py_ssize_t n = PySequence_Fast_GET_SIZE(xf);
  std::vector<float> x(n), y(n);
  bool ok = n == PySequence_Fast_GET_SIZE(yf);
  if (!ok) PyErr_SetString(PyExc_ValueError, "x and y differ in length");
  for (Py_ssize_t i = 0; ok && i < n; ++i) {
    x[i] = static_cast<float>(PyFloat_AsDouble(PySequence_Fast_GET_ITEM(xf, i)));
    y[i] = static_cast<float>(PyFloat_AsDouble(PySequence_Fast_GET_ITEM(yf, i)));
    ok = !PyErr_Occurred();
  }
  Py_DECREF(xf);
  Py_DECREF(yf);
  if (!ok) return nullptr;
  int devices = 0;
  hipError_t err = hipGetDeviceCount(&devices);
  if (err != hipSuccess) return hip_error(err, "hipGetDeviceCount");
  if (devices == 0) return hip_error(kNoDevice, "hipGetDeviceCount");
  const char* what = "";
  err = spirv_demo::saxpy(a, x.data(), y.data(), static_cast<size_t>(n), &what);
  if (err != hipSuccess) return hip_error(err, what);
  PyObject* out = PyList_New(n);
  for (Py_ssize_t i = 0; out && i < n; ++i) PyList_SET_ITEM(out, i, PyFloat_FromDouble(y[i]));
  return out;
}

PyMethodDef methods[] = {
    {"device_count", device_count, METH_NOARGS, "Number of AMD GPUs the HIP runtime sees (0 without one)."},
    {"saxpy", saxpy, METH_VARARGS, "saxpy(a, x, y) -> list: a*x + y computed on the GPU."},
    {nullptr, nullptr, 0, nullptr},
};

PyModuleDef module = {PyModuleDef_HEAD_INIT, "spirv_demo._core", "HIP kernels as one SPIR-V binary.", -1, methods};

}  // namespace

PyMODINIT_FUNC PyInit__core() {
  PyObject* m = PyModule_Create(&module);
  if (!m) return nullptr;
  NoDeviceError = PyErr_NewException("spirv_demo.NoDeviceError", PyExc_RuntimeError, nullptr);
  if (!NoDeviceError || PyModule_AddObject(m, "NoDeviceError", NoDeviceError) < 0) {
    Py_XDECREF(NoDeviceError);
    Py_DECREF(m);
    return nullptr;
  }
  Py_INCREF(NoDeviceError);
  return m;
}
