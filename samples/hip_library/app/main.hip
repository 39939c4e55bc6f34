// hiplib_app: runs every hiplib function on small inputs and checks the
// results against a host reference. Exit 0 when all agree (or when there is
// no AMD GPU to run on), 1 on a mismatch or a HIP error.
#include <hip/hip_runtime.h>
#include <hiplib/hiplib.h>

#include <climits>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

namespace {

int g_failures = 0;
constexpr double kPi = 3.14159265358979323846;

#define HIP_CHECK(expr)                                                                      \
  do {                                                                                       \
    const hipError_t err_ = (expr);                                                          \
    if (err_ != hipSuccess) {                                                                \
      std::fprintf(stderr, "hiplib_app: %s failed at %s:%d: %s\n", #expr, __FILE__, __LINE__, \
                   hipGetErrorString(err_));                                                 \
      std::exit(1);                                                                          \
    }                                                                                        \
  } while (0)

// Deterministic inputs (no <random>: identical on every host).
struct Lcg {
  std::uint32_t state;
  explicit Lcg(std::uint32_t seed) : state(seed) {}
  std::uint32_t next() {
    state = state * 1664525u + 1013904223u;
    return state;
  }
  float uniform(float lo, float hi) {  // [lo, hi)
    return lo + (hi - lo) * static_cast<float>(next() >> 8) * (1.0f / 16777216.0f);
  }
  int integer(int lo, int hi) {  // [lo, hi]
    return lo + static_cast<int>(next() % static_cast<std::uint32_t>(hi - lo + 1));
  }
};

// Device buffer tied to a host vector.
template <typename T>
class DeviceBuffer {
 public:
  explicit DeviceBuffer(size_t n) : n_(n) { HIP_CHECK(hipMalloc(&ptr_, bytes())); }
  explicit DeviceBuffer(const std::vector<T>& host) : DeviceBuffer(host.size()) { upload(host); }
  ~DeviceBuffer() { (void)hipFree(ptr_); }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;

  T* get() const { return ptr_; }
  void upload(const std::vector<T>& host) {
    HIP_CHECK(hipMemcpy(ptr_, host.data(), bytes(), hipMemcpyHostToDevice));
  }
  std::vector<T> download() const {
    std::vector<T> host(n_);
    HIP_CHECK(hipMemcpy(host.data(), ptr_, bytes(), hipMemcpyDeviceToHost));
    return host;
  }
  T value() const { return download().at(0); }

 private:
  size_t bytes() const { return n_ * sizeof(T) > 0 ? n_ * sizeof(T) : 1; }
  T* ptr_ = nullptr;
  size_t n_;
};

void report(const char* name, bool ok, double worst) {
  std::printf("  %-22s %s (worst error %.3g)\n", name, ok ? "ok" : "MISMATCH", worst);
  if (!ok) ++g_failures;
}

// |got - want| <= atol + rtol |want| for every element.
template <typename T>
void check_close(const char* name, const std::vector<T>& got, const std::vector<double>& want,
                 double atol, double rtol) {
  bool ok = got.size() == want.size();
  double worst = 0.0;
  for (size_t i = 0; ok && i < got.size(); ++i) {
    const double err = std::fabs(static_cast<double>(got[i]) - want[i]);
    if (err > worst) worst = err;
    if (!(err <= atol + rtol * std::fabs(want[i]))) {
      std::fprintf(stderr, "  %s[%zu]: got %.9g, want %.9g\n", name, i,
                   static_cast<double>(got[i]), want[i]);
      ok = false;
    }
  }
  report(name, ok, worst);
}

template <typename T>
void check_equal(const char* name, const std::vector<T>& got, const std::vector<T>& want) {
  bool ok = got.size() == want.size();
  for (size_t i = 0; ok && i < got.size(); ++i) {
    if (got[i] != want[i]) {
      std::fprintf(stderr, "  %s[%zu]: got %lld, want %lld\n", name, i,
                   static_cast<long long>(got[i]), static_cast<long long>(want[i]));
      ok = false;
    }
  }
  report(name, ok, 0.0);
}

// ---- host references ------------------------------------------------------

double ref_activation(hiplib_activation_t act, double x) {
  const double softplus = x > 20.0 ? x : std::log1p(std::exp(x));
  switch (act) {
    case HIPLIB_ACT_GELU_ERF: return 0.5 * x * (1.0 + std::erf(x / std::sqrt(2.0)));
    case HIPLIB_ACT_GELU_TANH:
      return 0.5 * x *
             (1.0 + std::tanh(std::sqrt(2.0 / kPi) * (x + 0.044715 * std::pow(x, 3.0))));
    case HIPLIB_ACT_SILU: return x / (1.0 + std::exp(-x));
    case HIPLIB_ACT_SOFTPLUS: return softplus;
    case HIPLIB_ACT_MISH: return x * std::tanh(softplus);
  }
  return NAN;
}

// ---- tests ----------------------------------------------------------------

void test_axpy() {
  const int n = 10007;
  Lcg rng(1);
  std::vector<float> xf(n), yf(n);
  std::vector<double> xd(n), yd(n), want_f(n), want_d(n);
  for (int i = 0; i < n; ++i) {
    xf[i] = rng.uniform(-4.0f, 4.0f);
    yf[i] = rng.uniform(-4.0f, 4.0f);
    xd[i] = xf[i] * 1.25;
    yd[i] = yf[i] * 0.75;
    want_f[i] = 2.5 * xf[i] + yf[i];
    want_d[i] = -0.3 * xd[i] + yd[i];
  }
  DeviceBuffer<float> dxf(xf), dyf(yf);
  DeviceBuffer<double> dxd(xd), dyd(yd);
  HIP_CHECK(hiplib_saxpy(n, 2.5f, dxf.get(), dyf.get(), nullptr));
  HIP_CHECK(hiplib_daxpy(n, -0.3, dxd.get(), dyd.get(), nullptr));
  check_close("saxpy", dyf.download(), want_f, 1e-6, 1e-6);
  check_close("daxpy", dyd.download(), want_d, 1e-14, 1e-14);
}

void test_activations() {
  const int n = 4099;
  Lcg rng(2);
  std::vector<float> x(n);
  for (int i = 0; i < n; ++i) x[i] = rng.uniform(-25.0f, 25.0f);
  DeviceBuffer<float> dx(x), dy(static_cast<size_t>(n));
  const struct {
    hiplib_activation_t act;
    const char* name;
  } acts[] = {{HIPLIB_ACT_GELU_ERF, "gelu_erf"},
              {HIPLIB_ACT_GELU_TANH, "gelu_tanh"},
              {HIPLIB_ACT_SILU, "silu"},
              {HIPLIB_ACT_SOFTPLUS, "softplus"},
              {HIPLIB_ACT_MISH, "mish"}};
  for (const auto& a : acts) {
    std::vector<double> want(n);
    for (int i = 0; i < n; ++i) want[i] = ref_activation(a.act, x[i]);
    HIP_CHECK(hiplib_activation(a.act, n, dx.get(), dy.get(), nullptr));
    check_close(a.name, dy.download(), want, 1e-5, 1e-5);
  }
}

void test_rotate2d() {
  const int n = 3001;
  Lcg rng(3);
  std::vector<float> angle(n), xs(n), ys(n);
  std::vector<double> want_x(n), want_y(n);
  for (int i = 0; i < n; ++i) {
    angle[i] = rng.uniform(-10.0f, 10.0f);
    xs[i] = rng.uniform(-1.0f, 1.0f);
    ys[i] = rng.uniform(-1.0f, 1.0f);
    const double s = std::sin(static_cast<double>(angle[i]));
    const double c = std::cos(static_cast<double>(angle[i]));
    want_x[i] = c * xs[i] - s * ys[i];
    want_y[i] = s * xs[i] + c * ys[i];
  }
  DeviceBuffer<float> da(angle), dxs(xs), dys(ys);
  HIP_CHECK(hiplib_rotate2d(n, da.get(), dxs.get(), dys.get(), nullptr));
  check_close("rotate2d.x", dxs.download(), want_x, 1e-5, 1e-5);
  check_close("rotate2d.y", dys.download(), want_y, 1e-5, 1e-5);
}

void test_softmax() {
  // One width per block-size instantiation (128, 256, 512).
  const int shapes[][2] = {{5, 33}, {7, 1000}, {3, 3001}};
  for (const auto& shape : shapes) {
    const int rows = shape[0], cols = shape[1];
    const size_t n = static_cast<size_t>(rows) * cols;
    Lcg rng(static_cast<std::uint32_t>(cols));
    std::vector<float> x(n);
    for (auto& v : x) v = rng.uniform(-30.0f, 30.0f);
    std::vector<double> want(n), want_log(n);
    for (int r = 0; r < rows; ++r) {
      const float* row = &x[static_cast<size_t>(r) * cols];
      double m = -INFINITY, s = 0.0;
      for (int c = 0; c < cols; ++c) m = std::fmax(m, row[c]);
      for (int c = 0; c < cols; ++c) s += std::exp(row[c] - m);
      for (int c = 0; c < cols; ++c) {
        want[static_cast<size_t>(r) * cols + c] = std::exp(row[c] - m) / s;
        want_log[static_cast<size_t>(r) * cols + c] = row[c] - m - std::log(s);
      }
    }
    DeviceBuffer<float> dx(x), dy(n);
    char name[64];
    HIP_CHECK(hiplib_softmax(rows, cols, dx.get(), dy.get(), nullptr));
    std::snprintf(name, sizeof name, "softmax %dx%d", rows, cols);
    check_close(name, dy.download(), want, 1e-6, 1e-4);
    HIP_CHECK(hiplib_log_softmax(rows, cols, dx.get(), dy.get(), nullptr));
    std::snprintf(name, sizeof name, "log_softmax %dx%d", rows, cols);
    check_close(name, dy.download(), want_log, 1e-4, 1e-5);
  }
}

void test_reductions() {
  // One size per block-size instantiation (128, 256, 512).
  for (const int n : {1000, 100000, 1 << 20}) {
    Lcg rng(static_cast<std::uint32_t>(n));
    std::vector<float> xf(static_cast<size_t>(n));
    std::vector<double> xd(static_cast<size_t>(n));
    std::vector<int> xi(static_cast<size_t>(n));
    double sum_f = 0.0, sum_abs = 0.0, sum_d = 0.0, sum_sq = 0.0;
    long long sum_i = 0;
    float max_f = -INFINITY;
    int max_i = INT_MIN;
    for (int i = 0; i < n; ++i) {
      xf[i] = rng.uniform(-1.0f, 1.0f) - 2.0f;  // all negative: max must beat the -inf start
      xd[i] = static_cast<double>(rng.uniform(-1.0f, 1.0f)) * 1e3;
      xi[i] = rng.integer(-1000, 999);
      sum_f += xf[i];
      sum_abs += std::fabs(xf[i]);
      sum_sq += static_cast<double>(xf[i]) * xf[i];
      sum_d += xd[i];
      sum_i += xi[i];
      max_f = std::fmax(max_f, xf[i]);
      max_i = xi[i] > max_i ? xi[i] : max_i;
    }
    DeviceBuffer<float> dxf(xf), rf(1);
    DeviceBuffer<double> dxd(xd), rd(1);
    DeviceBuffer<int> dxi(xi), ri(1);
    char name[64];

    HIP_CHECK(hiplib_reduce_sum_f32(n, dxf.get(), rf.get(), nullptr));
    std::snprintf(name, sizeof name, "reduce_sum_f32 n=%d", n);
    check_close(name, std::vector<float>{rf.value()}, {sum_f}, 2e-5 * sum_abs, 0.0);

    HIP_CHECK(hiplib_reduce_sum_f64(n, dxd.get(), rd.get(), nullptr));
    std::snprintf(name, sizeof name, "reduce_sum_f64 n=%d", n);
    check_close(name, std::vector<double>{rd.value()}, {sum_d}, 1e-9 * n, 1e-12);

    HIP_CHECK(hiplib_reduce_sum_i32(n, dxi.get(), ri.get(), nullptr));
    std::snprintf(name, sizeof name, "reduce_sum_i32 n=%d", n);
    check_equal(name, std::vector<long long>{ri.value()}, {sum_i});

    HIP_CHECK(hiplib_reduce_max_f32(n, dxf.get(), rf.get(), nullptr));
    std::snprintf(name, sizeof name, "reduce_max_f32 n=%d", n);
    check_close(name, std::vector<float>{rf.value()}, {max_f}, 0.0, 0.0);

    HIP_CHECK(hiplib_reduce_max_i32(n, dxi.get(), ri.get(), nullptr));
    std::snprintf(name, sizeof name, "reduce_max_i32 n=%d", n);
    check_equal(name, std::vector<int>{ri.value()}, {max_i});

    HIP_CHECK(hiplib_nrm2_f32(n, dxf.get(), rf.get(), nullptr));
    std::snprintf(name, sizeof name, "nrm2_f32 n=%d", n);
    check_close(name, std::vector<float>{rf.value()}, {std::sqrt(sum_sq)}, 0.0, 5e-5);
  }
}

void test_histogram() {
  const int n = 200003, nbins = 100;
  const float lo = -2.0f, hi = 3.0f;
  Lcg rng(4);
  std::vector<float> x(n);
  std::vector<unsigned int> want(nbins, 0u);
  const float scale = static_cast<float>(nbins) / (hi - lo);
  for (int i = 0; i < n; ++i) {
    x[i] = rng.uniform(-3.0f, 4.0f);  // some fall outside [lo, hi)
    if (x[i] >= lo && x[i] < hi) {
      const int b = static_cast<int>((x[i] - lo) * scale);
      ++want[b < nbins ? b : nbins - 1];
    }
  }
  DeviceBuffer<float> dx(x);
  DeviceBuffer<unsigned int> dbins(static_cast<size_t>(nbins));
  HIP_CHECK(hiplib_histogram(n, dx.get(), lo, hi, nbins, dbins.get(), nullptr));
  check_equal("histogram", dbins.download(), want);
}

void test_scan() {
  // 100000 elements: 391 blocks of 256, so the block totals are scanned
  // recursively (two more levels).
  const int n = 100000;
  Lcg rng(5);
  std::vector<int> xi(n);
  std::vector<float> xf(n);
  std::vector<int> want_i(n);
  std::vector<double> want_f(n);
  long long acc_i = 0;
  double acc_f = 0.0;
  for (int i = 0; i < n; ++i) {
    xi[i] = rng.integer(-50, 50);
    xf[i] = rng.uniform(0.0f, 1.0f);
    acc_i += xi[i];
    acc_f += xf[i];
    want_i[i] = static_cast<int>(acc_i);
    want_f[i] = acc_f;
  }
  DeviceBuffer<int> dxi(xi), dyi(static_cast<size_t>(n));
  DeviceBuffer<float> dxf(xf);
  HIP_CHECK(hiplib_scan_inclusive_i32(n, dxi.get(), dyi.get(), nullptr));
  check_equal("scan_inclusive_i32", dyi.download(), want_i);
  HIP_CHECK(hiplib_scan_inclusive_f32(n, dxf.get(), dxf.get(), nullptr));  // in place
  check_close("scan_inclusive_f32", dxf.download(), want_f, 1e-2, 1e-5);
}

}  // namespace

int main() {
  int count = 0;
  hipError_t err = hipGetDeviceCount(&count);
  if (err != hipSuccess || count <= 0) {
    if (err == hipSuccess) err = hipErrorNoDevice;
    std::printf("hiplib_app: no AMD GPU (%s); nothing to run\n", hipGetErrorString(err));
    return 0;
  }

  hipDeviceProp_t prop;
  HIP_CHECK(hipGetDeviceProperties(&prop, 0));
  std::printf("hiplib_app: %d device(s); running on device 0: %s (%s), warpSize %d\n", count,
              prop.name, prop.gcnArchName, prop.warpSize);
  HIP_CHECK(hipSetDevice(0));

  test_axpy();
  test_activations();
  test_rotate2d();
  test_softmax();
  test_reductions();
  test_histogram();
  test_scan();
  HIP_CHECK(hipDeviceSynchronize());

  if (g_failures != 0) {
    std::printf("hiplib_app: %d check(s) FAILED\n", g_failures);
    return 1;
  }
  std::printf("hiplib_app: all checks passed\n");
  return 0;
}
