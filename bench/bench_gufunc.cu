// ufunc::gufunc (issue 41) against a device copy of the same bytes, in one run,
// each call timed interleaved with its reference (bench_util.hpp):
//   1. "(n),(n)->()" dot products over 2^20 rows of n = 64 float32 (512 MiB read,
//      4 MiB written): >= 0.8 of a device copy moving the same bytes;
//   2. "(3,3),(3)->(3)" batched solves (partial pivoting, float32) over 2^24 systems
//      (768 MiB read, 192 MiB written): >= 0.6 of the copy.
// Checked before timing: a sample of rows against double-precision host loops.
#include <ufunc/gufunc.hpp>
#include <ufunc/ufunc.hpp>

#include "bench_copy.cuh"
#include "bench_util.hpp"

#include <cmath>
#include <cstdio>
#include <random>
#include <vector>

using namespace bench;

namespace {

struct dot_f {
  template <class X, class Y, class R>
  UFUNC_HD void operator()(const X& x, const Y& y, const R& r) const noexcept {
    float s = 0;
    for (ufunc::index_t j = 0; j < x.shape()[0]; ++j) s += x(j) * y(j);
    r() = s;
  }
};

// Written as a GPU function should be: every array indexed by constants after
// unrolling, so m and the solution stay in registers (a pivot row chosen by a
// runtime index puts m in local memory), and the outputs written once, never
// read back.
struct solve3_f {
  template <class A, class B, class X>
  UFUNC_HD void operator()(const A& a, const B& b, const X& x) const noexcept {
    float m[3][4];
#pragma unroll
    for (int i = 0; i < 3; ++i) {
#pragma unroll
      for (int j = 0; j < 3; ++j) m[i][j] = a(i, j);
      m[i][3] = b(i);
    }
#pragma unroll
    for (int c = 0; c < 3; ++c) {
#pragma unroll
      for (int r = c + 1; r < 3; ++r)  // partial pivoting: the largest |m[r][c]| ends in row c
        if (fabsf(m[r][c]) > fabsf(m[c][c])) {
#pragma unroll
          for (int k = 0; k < 4; ++k) {
            const float t = m[c][k];
            m[c][k] = m[r][k];
            m[r][k] = t;
          }
        }
#pragma unroll
      for (int r = c + 1; r < 3; ++r) {
        const float f = m[r][c] / m[c][c];
#pragma unroll
        for (int k = c; k < 4; ++k) m[r][k] -= f * m[c][k];
      }
    }
    float s[3];
#pragma unroll
    for (int i = 2; i >= 0; --i) {
      float t = m[i][3];
#pragma unroll
      for (int k = i + 1; k < 3; ++k) t -= m[i][k] * s[k];
      s[i] = t / m[i][i];
    }
#pragma unroll
    for (int i = 0; i < 3; ++i) x(i) = s[i];
  }
};

}  // namespace

int main() {
  const auto dev = bench_device("bench_gufunc", with_cc_and_memory);
  if (!dev) return 77;
  const int sms = dev->multiprocessors;
  const double peak = dev->peak_bandwidth();
  std::mt19937_64 g(20261128);
  std::uniform_real_distribution<float> u(-1.f, 1.f);
  bool ok = true;

  // ---- 1: dot products over rows of n, y distinct from x (no reads from L2) --------
  const auto dot_case = [&](ufunc::index_t rows, ufunc::index_t n, const char* name, const char* ratio_name,
                            bool targeted) {
    std::vector<float> xh(static_cast<std::size_t>(rows * n)), yh(xh.size());
    for (auto& v : xh) v = u(g);
    for (auto& v : yh) v = u(g);
    const auto x = ufunc::asarray(xh, ufunc::shape{rows, n}), y = ufunc::asarray(yh, ufunc::shape{rows, n});
    auto r = ufunc::empty<float>(ufunc::shape{rows});
    const auto dot = ufunc::gufunc(dot_f{}, "(n),(n)->()");
    dot(x, y, ufunc::out(r));
    const auto rh = r.to_host();
    for (ufunc::index_t k = 0; k < rows; k += 997) {
      double s = 0, a = 0;
      for (ufunc::index_t j = 0; j < n; ++j) s += double(xh[k * n + j]) * yh[k * n + j], a += std::fabs(double(xh[k * n + j]) * yh[k * n + j]);
      ok = ok && std::fabs(rh[static_cast<std::size_t>(k)] - s) <= (n + 2) * 6e-8 * a;
    }
    const double bytes = 2.0 * 4 * rows * n + 4.0 * rows;
    const bench_reference copy(bench_pass::copy, bytes, sms);
    const auto t = time_interleaved_ms([&] { copy(); }, [&] { dot(x, y, ufunc::out(r)); }, 25, 1);
    report(name, t.second, "ms");
    if (targeted)
      report_bandwidth(ratio_name, "device copy", bytes, t.second, t.first, peak,
                       bandwidth_target{0.8 * h100::copy_1gib, h100::copy_1gib});
    else
      report(ratio_name, t.first / t.second, "ratio");
  };
  dot_case(ufunc::index_t(1) << 20, 64, "dot (n),(n)->() 2^20 rows of 64 float32", "dot (n),(n)->(): bandwidth", true);
  // Short rows (64-byte blocks), as information.
  dot_case(ufunc::index_t(1) << 24, 16, "dot (n),(n)->() 2^24 rows of 16 float32",
           "dot of rows of 16: bandwidth / device copy (same bytes)", false);
  // ---- 2: 3x3 solves ---------------------------------------------------------------
  {
    const ufunc::index_t m = ufunc::index_t(1) << 24;
    std::vector<float> ah(static_cast<std::size_t>(m * 9)), bh(static_cast<std::size_t>(m * 3));
    for (auto& v : ah) v = u(g);
    for (ufunc::index_t k = 0; k < m; ++k)
      for (int i = 0; i < 3; ++i) ah[static_cast<std::size_t>(k * 9 + i * 4)] += 4.f;  // diagonally dominant
    for (auto& v : bh) v = u(g);
    const auto A = ufunc::asarray(ah, ufunc::shape{m, 3, 3}), B = ufunc::asarray(bh, ufunc::shape{m, 3});
    auto X = ufunc::empty<float>(ufunc::shape{m, 3});
    const auto solve = ufunc::gufunc(solve3_f{}, "(3,3),(3)->(3)");
    solve(A, B, ufunc::out(X));
    const auto xh = X.to_host();
    for (ufunc::index_t k = 0; k < m; k += 9973)
      for (int i = 0; i < 3; ++i) {
        double res = -bh[static_cast<std::size_t>(k * 3 + i)];
        for (int j = 0; j < 3; ++j) res += double(ah[static_cast<std::size_t>(k * 9 + i * 3 + j)]) * xh[static_cast<std::size_t>(k * 3 + j)];
        ok = ok && std::fabs(res) < 1e-5;
      }
    const double bytes = 4.0 * 12 * m + 4.0 * 3 * m;
    const bench_reference copy(bench_pass::copy, bytes, sms);
    const auto t = time_interleaved_ms([&] { copy(); }, [&] { solve(A, B, ufunc::out(X)); }, 25, 1);
    report("solve (3,3),(3)->(3) 2^24 systems float32", t.second, "ms");
    report_bandwidth("solve (3,3),(3)->(3): bandwidth", "device copy", bytes, t.second, t.first, peak,
                     bandwidth_target{0.6 * h100::copy_1gib, h100::copy_1gib});
  }
  if (!ok) {
    std::puts("bench_gufunc: FAILED: a result check (above) failed");
    return 1;
  }
  summary("bench_gufunc");
  return 0;
}
