// Issue 42's primitives against their CUB references and a same-run read or copy
// of the same bytes (bench_util.hpp; the CuPy and PyTorch peers of the same calls
// are bench/peers/primitives_peers.py, run right after in the same lease):
//   1. `ufunc::cumsum` of 2^28 float32 against cub::DeviceScan::InclusiveSum into
//      a preallocated output with preallocated temporaries: >= 0.9 of its speed;
//   2. `vectorize(plus{}).at(a, idx, b)` (np.add.at): 2^26 random indices into 2^20
//      float32 bins, one value each (time only; cupyx.scatter_add is the peer);
//   3. `ufunc::sum` of 2^27 complex64 (1 GiB) against the read kernel over the same
//      bytes: >= 0.85 of its speed;
//   4. `ufunc::matmul` of 4096^3 complex64 into out against cublasCgemm (FP32
//      arithmetic, no TF32) on the same operands (the target, >= 0.5 of
//      torch.matmul, is read against primitives_peers.py's figure).
// Checked before timing: the scan against CUB's element by element (within the
// float scan's rounding), add.at against a host loop of the same adds in double,
// the complex sum against a double host sum, the complex matmul's 64 sampled
// elements against double dot products (both ufunc's and cuBLAS's).
#include <ufunc/ufunc.hpp>

#include <cub/device/device_scan.cuh>
#include <cublas_v2.h>
#include <cuda/std/complex>

#include "bench_copy.cuh"
#include "bench_util.hpp"

#include <cmath>
#include <cstdio>
#include <random>
#include <vector>

using namespace bench;

int main() {
  const auto dev = bench_device("bench_primitives", with_cc_and_memory);
  if (!dev) return 77;
  using ufunc::index_t;
  const double peak = dev->peak_bandwidth();
  const int sms = dev->multiprocessors;
  std::mt19937_64 g(20261129);
  bool ok = true;

  // ---- 1: cumsum 2^28 float32 ---------------------------------------------------------
  {
    const index_t n = index_t(1) << 28;
    std::uniform_real_distribution<float> u(0.f, 1.f);
    std::vector<float> xh(static_cast<std::size_t>(n));
    for (auto& v : xh) v = u(g);
    const auto x = ufunc::asarray(xh, ufunc::shape{n});
    auto c = ufunc::empty<float>(ufunc::shape{n});
    std::size_t bytes = 0;
    UFUNC_CUDA_CHECK(cub::DeviceScan::InclusiveSum(nullptr, bytes, x.data(), c.data(), n));
    auto temp = ufunc::empty<unsigned char>(ufunc::shape{static_cast<index_t>(bytes) + 1});
    const auto cub_scan = [&] {
      std::size_t b = bytes;
      UFUNC_CUDA_CHECK(cub::DeviceScan::InclusiveSum(temp.data(), b, x.data(), c.data(), n));
    };
    cub_scan();
    auto r = ufunc::cumsum(x);
    {
      const auto rh = r.to_host(), ch = c.to_host();
      // Both are CUB's InclusiveSum, but not bit-equal run to run: its look-back adds a
      // predecessor's inclusive prefix or its aggregates, whichever is published first.
      // Float scans of positive values: each prefix within a few ulps per tile boundary
      // of the other; 1e-4 relative is far below a wrong element's error.
      for (index_t i = 0; i < n; i += 9973)
        ok = ok && std::fabs(rh[static_cast<std::size_t>(i)] - ch[static_cast<std::size_t>(i)]) <=
                       1e-4f * ch[static_cast<std::size_t>(i)] + 1e-6f;
      ok = ok && std::fabs(rh.back() - ch.back()) <= 1e-4f * ch.back();
      if (!ok) std::puts("bench_primitives: cumsum differs from cub::DeviceScan::InclusiveSum");
    }
    const auto t = time_interleaved_ms(cub_scan, [&] { r = ufunc::cumsum(x); }, 25, 1);
    report("cumsum 2^28 float32 (ufunc::cumsum, new array)", t.second, "ms");
    report("  cub::DeviceScan::InclusiveSum, preallocated", t.first, "ms");
    report("cumsum: ufunc speed / InclusiveSum speed", t.first / t.second, "ratio", ">= 0.9",
           t.first / t.second >= 0.9);
  }
  // ---- 2: add.at, 2^26 indices into 2^20 bins -------------------------------------------
  {
    const index_t bins = index_t(1) << 20, m = index_t(1) << 26;
    std::uniform_int_distribution<index_t> pick(0, bins - 1);
    std::uniform_real_distribution<float> u(-1.f, 1.f);
    std::vector<index_t> ih(static_cast<std::size_t>(m));
    std::vector<float> bh(static_cast<std::size_t>(m));
    for (auto& v : ih) v = pick(g);
    for (auto& v : bh) v = u(g);
    const auto idx = ufunc::asarray(ih, ufunc::shape{m});
    const auto b = ufunc::asarray(bh, ufunc::shape{m});
    auto a = ufunc::zeros<float>(ufunc::shape{bins});
    const auto add = ufunc::vectorize(ufunc::plus{}, "add");
    add.at(a, idx, b);
    {
      std::vector<double> want(static_cast<std::size_t>(bins), 0.0), mag(static_cast<std::size_t>(bins), 0.0);
      std::vector<index_t> count(static_cast<std::size_t>(bins), 0);
      for (index_t k = 0; k < m; ++k) {
        const auto i = static_cast<std::size_t>(ih[static_cast<std::size_t>(k)]);
        want[i] += bh[static_cast<std::size_t>(k)];
        mag[i] += std::fabs(bh[static_cast<std::size_t>(k)]);
        ++count[i];
      }
      const auto ah = a.to_host();
      // A bin's `count` float adds in any order: within count eps sum|b| of the exact sum.
      for (std::size_t i = 0; i < static_cast<std::size_t>(bins); ++i)
        ok = ok && std::fabs(ah[i] - want[i]) <= double(count[i]) * 0x1p-24 * mag[i];
      if (!ok) std::puts("bench_primitives: add.at differs from the host loop");
    }
    const double ms = time_device_ms([&] { add.at(a, idx, b); });
    report("add.at float32: 2^26 random indices into 2^20 bins", ms, "ms");
    report("  updates per second", double(m) / (ms * 1e-3) / 1e9, "G/s");
  }
  // ---- 3: complex64 sum 2^27 ----------------------------------------------------------------
  {
    using C = cuda::std::complex<float>;
    const index_t n = index_t(1) << 27;
    std::uniform_real_distribution<float> u(-1.f, 1.f);
    std::vector<C> xh(static_cast<std::size_t>(n));
    double re = 0, im = 0, are = 0, aim = 0;
    for (auto& v : xh) {
      v = C(u(g), u(g));
      re += v.real(), im += v.imag(), are += std::fabs(v.real()), aim += std::fabs(v.imag());
    }
    const auto x = ufunc::asarray(xh, ufunc::shape{n});
    C s = ufunc::sum(x);
    // The documented bound, (log2 N + 32) eps sum|x| a part.
    const double bound = (27 + 32) * 6e-8;
    ok = ok && std::fabs(s.real() - re) <= bound * are && std::fabs(s.imag() - im) <= bound * aim;
    if (!ok) std::puts("bench_primitives: the complex64 sum is outside its bound");
    const double bytes = 8.0 * double(n);
    const bench_reference read(bench_pass::read, bytes, sms);
    const auto t = time_interleaved_ms({[&] { read(); }, [&] { s = ufunc::sum(x); }}, 25, 1);
    report("complex64 sum 2^27 (ufunc::sum)", t[1], "ms");
    report_bandwidth("complex64 sum 2^27", "read kernel", bytes, t[1], t[0], peak,
                     bandwidth_target{0.85 * h100::read_512mib, h100::read_512mib});
  }
  // ---- 4: complex64 matmul 4096^3 -------------------------------------------------------------
  {
    using C = cuda::std::complex<float>;
    const index_t n = 4096;
    std::uniform_real_distribution<float> u(-1.f, 1.f);
    std::vector<C> ah(static_cast<std::size_t>(n * n)), bh(ah.size());
    for (auto& v : ah) v = C(u(g), u(g));
    for (auto& v : bh) v = C(u(g), u(g));
    const auto a = ufunc::asarray(ah, ufunc::shape{n, n}), b = ufunc::asarray(bh, ufunc::shape{n, n});
    ufunc::array<C> c(ufunc::shape{n, n}), cb(ufunc::shape{n, n});
    cublasHandle_t h;
    if (cublasCreate(&h) != CUBLAS_STATUS_SUCCESS) {
      std::puts("bench_primitives: cublasCreate failed");
      return 1;
    }
    const cuComplex one{1.f, 0.f}, zero{0.f, 0.f};
    auto cgemm = [&] {  // row-major C = A B is column-major C^T = B^T A^T
      cublasCgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, int(n), int(n), int(n), &one, reinterpret_cast<const cuComplex*>(b.data()),
                  int(n), reinterpret_cast<const cuComplex*>(a.data()), int(n), &zero, reinterpret_cast<cuComplex*>(cb.data()),
                  int(n));
    };
    ufunc::matmul(a, b, ufunc::out(c));
    cgemm();
    const auto ch = c.to_host(), cbh = cb.to_host();
    std::mt19937_64 pick(7);
    for (int t = 0; t < 64 && ok; ++t) {
      const std::size_t i = pick() % std::size_t(n), j = pick() % std::size_t(n);
      double re = 0, im = 0, scale = 0;
      for (std::size_t p = 0; p < std::size_t(n); ++p) {
        const C x = ah[i * std::size_t(n) + p], y = bh[p * std::size_t(n) + j];
        re += double(x.real()) * y.real() - double(x.imag()) * y.imag();
        im += double(x.real()) * y.imag() + double(x.imag()) * y.real();
        scale += (std::fabs(double(x.real())) + std::fabs(double(x.imag()))) * (std::fabs(double(y.real())) + std::fabs(double(y.imag())));
      }
      const double bound = (2.0 * double(n) + 2) * 0x1p-24 * scale;  // docs/linalg.md
      for (const C& got : {ch[i * std::size_t(n) + j], cbh[i * std::size_t(n) + j]})
        ok = ok && std::fabs(got.real() - re) <= bound && std::fabs(got.imag() - im) <= bound;
    }
    if (!ok) std::puts("bench_primitives: the complex64 matmul (ufunc's or cuBLAS's) is outside its bound");
    const auto t = time_interleaved_ms({[&] { cgemm(); }, [&] { ufunc::matmul(a, b, ufunc::out(c)); }}, 7, 1);
    const double flops = 8.0 * double(n) * double(n) * double(n);
    report("complex64 matmul 4096^3 (ufunc::matmul into out)", t[1], "ms");
    report("complex64 matmul 4096^3 (cublasCgemm)", t[0], "ms");
    report("  ufunc TFLOP/s (8 n^3)", flops / (t[1] * 1e-3) / 1e12, "TFLOP/s");
    report("  ufunc / cublasCgemm speed", t[0] / t[1], "x");
    cublasDestroy(h);
  }
  if (!ok) {
    std::puts("bench_primitives: FAILED: a result check (above) failed");
    return 1;
  }
  summary("bench_primitives");
  return 0;
}
