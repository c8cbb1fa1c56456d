// half_precision: the same work in float, __half and __nv_bfloat16, with the
// time and the error of each.
//
// Bandwidth-bound ufuncs move half the bytes in 16-bit types, so a Gaussian pdf
// or a sum over them runs up to twice as fast; the price is precision: __half
// keeps 11 significant bits (range to 65504), bfloat16 8 (float's range). The
// library computes in float inside the kernels (the lambda converts), sums
// accumulate in float, and a matrix product of 16-bit inputs runs on the tensor
// cores with float accumulation. Each figure below is checked against a double
// computation on the same rounded inputs: what is left is the rounding of the
// 16-bit result (2^-11 or 2^-8 relative; absolute where a __half result is
// subnormal, below 6.1e-5) and float arithmetic.
#include <ufunc/ufunc.hpp>

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <functional>
#include <random>
#include <string>
#include <vector>

namespace {

// The standard normal pdf; for 16-bit T computed in float, rounded once to T.
struct gauss_f {
  template <class T>
  UFUNC_HD T operator()(T x) const {
    const float v = static_cast<float>(x);
    return static_cast<T>(0.3989422804014327f * expf(-0.5f * v * v));
  }
};

double median_seconds(const std::function<void()>& fn) {
  const int runs = ufunc::cuda_backend ? 5 : 1;
  if (ufunc::cuda_backend) fn();
  ufunc::synchronize();
  std::vector<double> t;
  for (int r = 0; r < runs; ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    fn();
    ufunc::synchronize();
    t.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  }
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

template <class T>
const char* name_of() {
  if constexpr (std::is_same_v<T, float>) return "float";
  if constexpr (std::is_same_v<T, __half>) return "half";
  return "bfloat16";
}
template <class T>
double unit_roundoff() {  // of T's round to nearest
  if constexpr (std::is_same_v<T, float>) return std::ldexp(1.0, -24);
  if constexpr (std::is_same_v<T, __half>) return std::ldexp(1.0, -11);
  return std::ldexp(1.0, -8);
}
/// Half the spacing of T's subnormals: below T's smallest normal value (6.1e-5
/// for __half) a rounding error is absolute, not relative.
template <class T>
double subnormal_floor() {
  if constexpr (std::is_same_v<T, __half>) return std::ldexp(1.0, -25);
  if constexpr (std::is_same_v<T, __nv_bfloat16>) return std::ldexp(1.0, -134);
  return std::ldexp(1.0, -150);
}

bool ok = true;

template <class T>
void pdf_and_sum(const std::vector<float>& xf) {
  const std::size_t n = xf.size();
  std::vector<T> h(n);
  for (std::size_t i = 0; i < n; ++i) h[i] = static_cast<T>(xf[i]);
  const auto x = ufunc::to_device(h);
  auto y = ufunc::empty<T>(x.shape());
  const auto pdf = ufunc::vectorize(gauss_f{});
  const double tp = median_seconds([&] { pdf(x, ufunc::out(y)); });
  float total = 0;
  const double ts = median_seconds([&] { total = static_cast<float>(ufunc::sum(x)); });

  // References in double on the rounded inputs.
  const auto got = y.to_host();
  double worst = 0, ref_sum = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const double v = static_cast<float>(h[i]);
    const double want = 0.3989422804014327 * std::exp(-0.5 * v * v);
    // error in units of the allowed bound: one rounding to T (relative, or
    // absolute below T's normals) plus float's expf and multiplies (1e-6 relative)
    const double err = std::fabs(static_cast<float>(got[i]) - want);
    worst = std::max(worst, err / ((unit_roundoff<T>() + 1e-6) * want + subnormal_floor<T>()));
    ref_sum += v;
  }
  double abs_sum = 0;
  for (std::size_t i = 0; i < n; ++i) abs_sum += std::fabs(static_cast<float>(h[i]));
  const double sum_err = std::fabs(total - ref_sum) / abs_sum;
  // pdf: one rounding to T plus float's expf (a few float ulps); sum: float
  // accumulation (tree order) relative to sum |x|.
  const bool good = worst <= 1.0 && sum_err <= 1e-5;
  ok = ok && good;
  std::printf("%-9s pdf %8.3f ms %7.1f GB/s  max err/bound %.3f | sum %8.3f ms %7.1f GB/s  err/sum|x| %.2e%s\n",
              name_of<T>(), tp * 1e3, 2.0 * sizeof(T) * n / tp * 1e-9, worst, ts * 1e3, sizeof(T) * n / ts * 1e-9,
              sum_err, good ? "" : "  MISMATCH");
}

// C = A @ B for bfloat16 inputs (tensor cores on CUDA) against the FP32 product
// of the same rounded values.
void matmul_bf16(long n) {
  std::mt19937 rng(3);
  std::uniform_real_distribution<float> d(-1.f, 1.f);
  std::vector<__nv_bfloat16> ha(static_cast<std::size_t>(n * n)), hb(ha.size());
  std::vector<float> fa(ha.size()), fb(ha.size());
  for (std::size_t i = 0; i < ha.size(); ++i) {
    ha[i] = __float2bfloat16(d(rng));
    hb[i] = __float2bfloat16(d(rng));
    fa[i] = __bfloat162float(ha[i]);
    fb[i] = __bfloat162float(hb[i]);
  }
  const ufunc::shape s{n, n};
  const auto a16 = ufunc::to_device(ha, s), b16 = ufunc::to_device(hb, s);
  const auto a32 = ufunc::to_device(fa, s), b32 = ufunc::to_device(fb, s);
  auto c16 = ufunc::empty<__nv_bfloat16>(s);
  auto c32 = ufunc::empty<float>(s);
  const double t16 = median_seconds([&] { ufunc::matmul(a16, b16, ufunc::out(c16)); });
  const double t32 = median_seconds([&] { ufunc::matmul(a32, b32, ufunc::out(c32)); });
  const auto r16 = c16.to_host();
  const auto r32 = c32.to_host();
  double num = 0, den = 0;
  for (std::size_t i = 0; i < r16.size(); ++i) {
    const double e = static_cast<double>(__bfloat162float(r16[i])) - r32[i];
    num += e * e;
    den += static_cast<double>(r32[i]) * r32[i];
  }
  const double err = std::sqrt(num / den);
  const bool good = err <= std::ldexp(1.0, -8);  // the bfloat16 result's rounding, at most
  ok = ok && good;
  const double flop = 2.0 * n * n * n;
  std::printf("matmul %ld^3: bfloat16 %.3f ms %.1f TFLOP/s, float %.3f ms %.1f TFLOP/s (%.1fx); "
              "bfloat16 vs float rel. error %.2e%s\n",
              n, t16 * 1e3, flop / t16 * 1e-12, t32 * 1e3, flop / t32 * 1e-12, t32 / t16, err,
              good ? "" : "  MISMATCH");
}

}  // namespace

int main() {
  if (ufunc::cuda_backend && !ufunc::device_available()) {
    std::puts("half_precision: no CUDA device, skipped");
    return 77;
  }
  const std::size_t n = ufunc::cuda_backend ? std::size_t(1) << 26 : std::size_t(1) << 20;
  std::mt19937 rng(11);
  std::normal_distribution<float> normal(0.f, 1.f);
  std::vector<float> xf(n);
  for (auto& v : xf) v = normal(rng);
  std::printf("%zu elements (%s)\n", n, ufunc::cuda_backend ? "CUDA" : "host backend");
  pdf_and_sum<float>(xf);
  pdf_and_sum<__half>(xf);
  pdf_and_sum<__nv_bfloat16>(xf);
  matmul_bf16(ufunc::cuda_backend ? 4096 : 256);
  std::puts(ok ? "half_precision: ok" : "half_precision: FAILED");
  return ok ? 0 : 1;
}
