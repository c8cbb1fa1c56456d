// managing_memory: keep data on the device; copy once in, once out.
//
// A ufunc accepts plain std::vectors, which is convenient but, on the CUDA
// backend, every such call copies its inputs to the device, allocates the result
// there, and copies it back (synchronously). In a loop, those transfers cost far
// more than the arithmetic. The fix is the same as in Numba: move inputs once
// with ufunc::to_device, allocate the output once (ufunc::empty / empty_like),
// compute into it repeatedly with ufunc::out(...), which allocates nothing, and
// read the result with to_host() once at the end.
//
// The loop here runs K steps of a leaky integrator, v <- 0.9 v + x, (a) on
// std::vectors and (b) on device-resident arrays updating v in place, times both
// and checks the values against a double-precision host reference. On the host
// backend "device" memory is host memory, so (a) only pays for a fresh result
// vector per step and the two times are close.
#include <ufunc/ufunc.hpp>

#include <cfloat>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <random>
#include <vector>

int main() {
  if (ufunc::cuda_backend && !ufunc::device_available()) {
    std::puts("managing_memory: no CUDA device, skipped");
    return 77;
  }

  constexpr float decay = 0.9f;
  auto step = ufunc::vectorize([] UFUNC_HD (float v, float x) { return decay * v + x; }, "leaky_step");

  const std::size_t n = 1 << 22;  // 16 MiB per float array
  const int steps = 50;
  std::vector<float> hx(n);
  std::mt19937 rng(1);
  std::uniform_real_distribution<float> dist(1.0f, 2.0f);
  for (auto& v : hx) v = dist(rng);

  using clock = std::chrono::steady_clock;
  auto ms_since = [](clock::time_point t0) {
    return std::chrono::duration<double, std::milli>(clock::now() - t0).count();
  };
  // Warm-up (context creation, memory pool, kernel loading) outside both timings.
  step(0.0f, ufunc::to_device(hx)).to_host();

  // (a) The slow path: host vectors in and out of every call.
  auto t0 = clock::now();
  std::vector<float> va = step(0.0f, hx);  // v starts at 0: the scalar broadcasts
  for (int k = 1; k < steps; ++k) va = step(va, hx);
  const double ms_a = ms_since(t0);

  // (b) Device-resident: one copy in, one allocation, one copy out.
  t0 = clock::now();
  auto x = ufunc::to_device(hx);
  auto v = ufunc::empty_like(x);            // uninitialised; the first step writes it
  step(0.0f, x, ufunc::out(v));
  for (int k = 1; k < steps; ++k) step(v, x, ufunc::out(v));  // in place, no allocation
  const std::vector<float> vb = v.to_host();  // waits for the queued steps
  const double ms_b = ms_since(t0);

  // Reference in double (with the same float decay). Each float step rounds at
  // most twice (1 eps relative) and earlier errors shrink by 0.9 per step, so the
  // relative error stays below eps / (1 - 0.9) = 10 eps; allow 16.
  const double rtol = 16.0 * FLT_EPSILON;
  std::size_t bad = 0;
  double worst = 0.0;
  for (std::size_t i = 0; i < n; ++i) {
    double ref = 0.0;
    for (int k = 0; k < steps; ++k) ref = static_cast<double>(decay) * ref + hx[i];
    const double ea = std::fabs(va[i] - ref) / ref, eb = std::fabs(vb[i] - ref) / ref;
    worst = std::fmax(worst, std::fmax(ea, eb));
    if (!(ea <= rtol) || !(eb <= rtol)) {
      if (bad++ < 5) std::printf("MISMATCH at %zu: (a) %.9g, (b) %.9g, expected %.9g\n", i, va[i], vb[i], ref);
    }
  }

  std::printf("%d steps over %zu float32 values on the %s target\n", steps, n, ufunc::target::device::name);
  std::printf("  (a) std::vector in and out of every call:        %9.2f ms\n", ms_a);
  std::printf("  (b) arrays resident on the %s target, out buffer: %9.2f ms  (%.1fx faster)\n",
              ufunc::target::device::name, ms_b, ms_a / ms_b);
  std::printf("  max relative error %.3g (tolerance %.3g)\n", worst, rtol);
  if (bad != 0) {
    std::printf("managing_memory: FAILED (%zu mismatches)\n", bad);
    return 1;
  }
  std::puts("managing_memory: ok");
  return 0;
}
