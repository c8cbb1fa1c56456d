// The host backend against the loops it replaces (issue 37): float32 sum and
// gaussian_pdf (into out) at 2^10..2^26 elements, ufunc's host target against a
// plain serial loop and the machine's read bandwidth, measured in the same run:
// a multi-threaded read of the same bytes (std::threads, eight independent sums
// each, its best of the repetitions). Repetitions interleave the contenders so
// that drift and load hit each alike; medians (calls under 2^16 elements timed
// in batches of about 2^16 elements of work). Every result is checked (the
// sum against a double loop within the README bound, the pdf against the loop
// bit for bit). NumPy (and numexpr, Numba where installed) on the same sizes:
// bench/peers/host_peers.py. Then float32 matmul (n, n) @ (n, n) in GFLOP/s
// (NumPy's np.matmul in host_peers.py), and (issue 37, item 3) against a
// serial loop of the same arithmetic and NumPy: sums of an (n, n) matrix along
// axis 0 and axis 1; a lazy expression of four calls evaluated into out,
// exp(-0.5 ((x - a)^2 + (y - b)^2)) * w (numexpr's one-string form in the
// peers); a pairwise kernel sum, out[i] = sum_j exp(-|p_i - q_j|^2 / 2) b_j
// for points in 3-D (NumPy: broadcasting in blocks of rows).
//   usage: bench_host [--quick] [--max E] [--csv file]
//   (quick: up to 2^20, fewer repetitions; --max: up to 2^E)
#include <ufunc/ufunc.hpp>

#include <cuda/std/array>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <thread>
#include <vector>

namespace {

using H = ufunc::target::host;
using clk = std::chrono::steady_clock;

double us_since(clk::time_point t0) { return std::chrono::duration<double, std::micro>(clk::now() - t0).count(); }

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

/// The read-bandwidth reference: `threads` std::threads each summing its slice
/// with eight independent float accumulators (vectorised by the compiler).
float read_all(const float* p, std::size_t n, int threads) {
  std::vector<float> part(static_cast<std::size_t>(threads));
  auto body = [&](int t) {
    const std::size_t lo = n * static_cast<std::size_t>(t) / static_cast<std::size_t>(threads);
    const std::size_t hi = n * static_cast<std::size_t>(t + 1) / static_cast<std::size_t>(threads);
    float a[8] = {};
    std::size_t i = lo;
    for (; i + 8 <= hi; i += 8)
      for (int k = 0; k < 8; ++k) a[k] += p[i + static_cast<std::size_t>(k)];
    for (; i < hi; ++i) a[0] += p[i];
    part[static_cast<std::size_t>(t)] = ((a[0] + a[1]) + (a[2] + a[3])) + ((a[4] + a[5]) + (a[6] + a[7]));
  };
  std::vector<std::thread> th;
  for (int t = 1; t < threads; ++t) th.emplace_back(body, t);
  body(0);
  for (auto& x : th) x.join();
  float s = 0;
  for (float v : part) s += v;
  return s;
}

/// Per-call microseconds of `inner` back-to-back calls of f: calls of a few
/// microseconds are timed in batches (one alone is within the clock's and the
/// scheduler's noise). The barrier keeps the compiler from hoisting a loop's
/// work out of the batch.
template <class F>
double per_call_us(int inner, const F& f) {
  const auto t0 = clk::now();
  for (int i = 0; i < inner; ++i) {
    f();
    asm volatile("" ::: "memory");
  }
  return us_since(t0) / inner;
}
/// Calls per batch for `elements` elements of work: about 2^16 in all.
int batch_for(std::size_t elements) { return static_cast<int>(std::max<std::size_t>(1, (std::size_t(1) << 16) / elements)); }

inline float pdf(float x) { return std::exp(-0.5f * x * x) * 0.3989422804f; }
/// The same with ufunc::math::exp (vectorisable; within 1 ulp of exp).
inline float pdf_math(float x) { return ufunc::math::exp(-0.5f * x * x) * 0.3989422804f; }

}  // namespace

int main(int argc, char** argv) {
  bool quick = false;
  const char* csv_path = nullptr;
  int max_e = 0;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--max") && i + 1 < argc) max_e = std::atoi(argv[++i]);
    if (!std::strcmp(argv[i], "--quick")) quick = true;
    if (!std::strcmp(argv[i], "--csv") && i + 1 < argc) csv_path = argv[++i];
  }
  const int threads = ufunc::detail::host::parallel_slots();
  const int top = max_e > 0 ? max_e : quick ? 20 : 26;
  FILE* csv = csv_path ? std::fopen(csv_path, "w") : nullptr;
  if (csv) std::fprintf(csv, "workload,n,threads,impl,median_us,gbps_or_melem\n");
  std::printf("threads %d (omp_get_max_threads), hardware threads %u\n", threads, std::thread::hardware_concurrency());
  std::printf("%-13s %9s %11s %11s %11s %9s %9s\n", "workload", "n", "ufunc us", "loop us", "read us", "vs loop", "vs read");
  const auto f_pdf = ufunc::vectorize<H>([](float x) { return pdf(x); }, "gaussian_pdf");
  const auto f_pdf_math = ufunc::vectorize<H>([](float x) { return pdf_math(x); }, "gaussian_pdf_math");
  bool ok = true;
  std::mt19937 rng(12345);
  for (int e = 10; e <= top; e += 2) {
    const std::size_t n = std::size_t(1) << e;
    const int reps = quick ? 7 : (e <= 20 ? 41 : e <= 24 ? 15 : 7);
    std::vector<float> h(n);
    std::uniform_real_distribution<float> u(-3.f, 3.f);
    for (auto& v : h) v = u(rng);
    const auto x = ufunc::asarray<H>(h, ufunc::shape{static_cast<ufunc::index_t>(n)});
    auto y = ufunc::empty<float, H>(ufunc::shape{static_cast<ufunc::index_t>(n)});
    std::vector<float> yl(n);
    // Checks (outside the timing).
    double exact = 0, abs_sum = 0;
    for (float v : h) exact += v, abs_sum += std::fabs(v);
    const float s = ufunc::sum(x);
    const double bound = (std::log2(static_cast<double>(n)) + 32) * 5.96e-8 * abs_sum;
    if (std::fabs(s - exact) > bound) {
      std::printf("FAILED: sum %.9g, exact %.9g, bound %.3g\n", s, exact, bound);
      ok = false;
    }
    f_pdf(x, ufunc::out(y));
    for (std::size_t i = 0; i < n; ++i) yl[i] = pdf(h[i]);
    if (std::memcmp(y.data(), yl.data(), n * sizeof(float)) != 0) {
      std::printf("FAILED: gaussian_pdf differs from the loop at n = %zu\n", n);
      ok = false;
    }
    f_pdf_math(x, ufunc::out(y));
    for (std::size_t i = 0; i < n; ++i) {
      const float want = pdf(h[i]), got = y.data()[i];
      if (!(std::fabs(got - want) <= 4e-7f * std::fabs(want) + 1e-37f)) {  // exp's ulp, rounding after it
        std::printf("FAILED: gaussian_pdf_math %.9g against %.9g at x = %g\n", got, want, h[i]);
        ok = false;
        break;
      }
    }
    std::vector<double> t_sum, t_loop, t_read, t_pdf, t_pdf_loop, t_pdf_math;
    volatile float sink = 0;
    const int inner = batch_for(n);
    for (int r = 0; r < reps; ++r) {
      t_sum.push_back(per_call_us(inner, [&] { sink = ufunc::sum(x); }));
      t_loop.push_back(per_call_us(inner, [&] {
        float acc = 0;
        for (std::size_t i = 0; i < n; ++i) acc += h[i];
        sink = acc;
      }));
      t_read.push_back(per_call_us(1, [&] { sink = read_all(h.data(), n, threads); }));
      t_pdf.push_back(per_call_us(inner, [&] { f_pdf(x, ufunc::out(y)); }));
      t_pdf_loop.push_back(per_call_us(inner, [&] {
        for (std::size_t i = 0; i < n; ++i) yl[i] = pdf(h[i]);
      }));
      t_pdf_math.push_back(per_call_us(inner, [&] { f_pdf_math(x, ufunc::out(y)); }));
    }
    (void)sink;
    const double ms = median(t_sum), ml = median(t_loop), mr = *std::min_element(t_read.begin(), t_read.end());
    const double mp = median(t_pdf), mpl = median(t_pdf_loop), mpm = median(t_pdf_math);
    std::printf("%-13s %9zu %11.1f %11.1f %11.1f %8.2fx %8.2f\n", "sum", n, ms, ml, mr, ml / ms, mr / ms);
    std::printf("%-13s %9zu %11.1f %11.1f %11s %8.2fx %9s\n", "gaussian_pdf", n, mp, mpl, "", mpl / mp, "");
    std::printf("%-13s %9zu %11.1f %11.1f %11s %8.2fx %9s\n", "pdf math::exp", n, mpm, mpl, "", mpl / mpm, "");
    if (csv) {
      const double gb = static_cast<double>(n) * 4 / 1e3;  // bytes / 1e3 / us = GB/s
      std::fprintf(csv, "sum,%zu,%d,ufunc,%.3f,%.3f\n", n, threads, ms, gb / ms);
      std::fprintf(csv, "sum,%zu,1,serial_loop,%.3f,%.3f\n", n, ml, gb / ml);
      std::fprintf(csv, "sum,%zu,%d,read_bandwidth,%.3f,%.3f\n", n, threads, mr, gb / mr);
      std::fprintf(csv, "gaussian_pdf,%zu,%d,ufunc,%.3f,%.3f\n", n, threads, mp, static_cast<double>(n) / mp);
      std::fprintf(csv, "gaussian_pdf,%zu,1,serial_loop,%.3f,%.3f\n", n, mpl, static_cast<double>(n) / mpl);
      std::fprintf(csv, "gaussian_pdf,%zu,%d,ufunc_math_exp,%.3f,%.3f\n", n, threads, mpm, static_cast<double>(n) / mpm);
    }
  }
  // matmul, float32 (n, n) @ (n, n): the `blocked` host variant's GFLOP/s; NumPy's
  // np.matmul (its BLAS) on the same sizes in host_peers.py. Checked at 64
  // elements against a double loop (tolerance: n eps of sum |a||b|, float's
  // bound for any summation order, far above what a blocked sum reaches).
  std::printf("%-13s %9s %11s %11s\n", "workload", "n", "ufunc us", "GFLOP/s");
  for (const ufunc::index_t n : quick ? std::vector<ufunc::index_t>{256, 512} : std::vector<ufunc::index_t>{256, 1024, 2048}) {
    const auto un = static_cast<std::size_t>(n);
    std::vector<float> ha(un * un), hb(un * un);
    std::uniform_real_distribution<float> u(-1.f, 1.f);
    for (auto& v : ha) v = u(rng);
    for (auto& v : hb) v = u(rng);
    const auto a = ufunc::asarray<H>(ha, ufunc::shape{n, n}), b = ufunc::asarray<H>(hb, ufunc::shape{n, n});
    auto c = ufunc::matmul(a, b);
    std::uniform_int_distribution<std::size_t> pick(0, un - 1);
    for (int t = 0; t < 64; ++t) {
      const std::size_t i = pick(rng), j = pick(rng);
      double want = 0, mag = 0;
      for (std::size_t k = 0; k < un; ++k) {
        want += double(ha[i * un + k]) * hb[k * un + j];
        mag += std::fabs(double(ha[i * un + k]) * hb[k * un + j]);
      }
      if (std::fabs(c.data()[i * un + j] - want) > double(n) * 5.96e-8 * mag) {
        std::printf("FAILED: matmul %zu at (%zu, %zu): %.9g against %.9g\n", un, i, j, c.data()[i * un + j], want);
        ok = false;
        break;
      }
    }
    std::vector<double> t_mm;
    for (int r = 0; r < (quick ? 3 : 5); ++r) {
      const auto t0 = clk::now();
      ufunc::matmul(a, b, ufunc::out(c));
      t_mm.push_back(us_since(t0));
    }
    const double mm = median(t_mm), gflops = 2.0 * double(n) * double(n) * double(n) / mm / 1e3;
    std::printf("%-13s %9zu %11.1f %11.1f\n", "matmul", un, mm, gflops);
    if (csv) std::fprintf(csv, "matmul,%zu,%d,ufunc,%.3f,%.3f\n", un, threads, mm, gflops);
  }
  // Axis sums of an (n, n) float32 matrix: axis 0 (column sums, the rows read
  // in order) and axis 1 (row sums); the loops are the plain serial ones a user
  // writes (axis 0: one row added into a vector of n partials at a time).
  std::printf("%-13s %9s %11s %11s %9s\n", "workload", "n x n", "ufunc us", "loop us", "vs loop");
  for (const ufunc::index_t n : quick ? std::vector<ufunc::index_t>{256, 1024} : std::vector<ufunc::index_t>{256, 1024, 4096}) {
    const auto un = static_cast<std::size_t>(n);
    std::vector<float> h(un * un);
    std::uniform_real_distribution<float> u(-1.f, 1.f);
    for (auto& v : h) v = u(rng);
    const auto a = ufunc::asarray<H>(h, ufunc::shape{n, n});
    auto r = ufunc::empty<float, H>(ufunc::shape{n});
    std::vector<float> rl(un);
    for (int ax = 0; ax < 2; ++ax) {
      ufunc::sum(a, ufunc::axis(ax), ufunc::out(r));
      for (std::size_t k = 0; k < un; ++k) {  // check against a double sum, the README bound
        double want = 0, mag = 0;
        for (std::size_t i = 0; i < un; ++i) {
          const double v = ax == 0 ? h[i * un + k] : h[k * un + i];
          want += v, mag += std::fabs(v);
        }
        if (std::fabs(r.data()[k] - want) > (std::log2(double(n)) + 32) * 5.96e-8 * mag) {
          std::printf("FAILED: sum axis %d of %zu x %zu at %zu: %.9g against %.9g\n", ax, un, un, k, r.data()[k], want);
          ok = false;
          break;
        }
      }
      std::vector<double> t_u, t_l;
      volatile float sink = 0;
      const int inner = batch_for(un * un);
      for (int rep = 0; rep < (quick ? 7 : 15); ++rep) {
        t_u.push_back(per_call_us(inner, [&] { ufunc::sum(a, ufunc::axis(ax), ufunc::out(r)); }));
        t_l.push_back(per_call_us(inner, [&] {
          if (ax == 0) {
            std::fill(rl.begin(), rl.end(), 0.0f);
            for (std::size_t i = 0; i < un; ++i)
              for (std::size_t k = 0; k < un; ++k) rl[k] += h[i * un + k];
          } else {
            for (std::size_t k = 0; k < un; ++k) {
              float acc = 0;
              for (std::size_t i = 0; i < un; ++i) acc += h[k * un + i];
              rl[k] = acc;
            }
          }
          sink = rl[un / 2];
        }));
      }
      (void)sink;
      const double mu = median(t_u), ml = median(t_l);
      const char* w = ax == 0 ? "sum_axis0" : "sum_axis1";
      std::printf("%-13s %9zu %11.1f %11.1f %8.2fx\n", w, un, mu, ml, ml / mu);
      if (csv) {
        const double gb = static_cast<double>(un * un) * 4 / 1e3;
        std::fprintf(csv, "%s,%zu,%d,ufunc,%.3f,%.3f\n", w, un, threads, mu, gb / mu);
        std::fprintf(csv, "%s,%zu,1,serial_loop,%.3f,%.3f\n", w, un, ml, gb / ml);
      }
    }
  }
  // A lazy expression of four calls, one pass into out: the serial loop computes
  // the same float arithmetic (so the bits agree).
  const auto f_sub = ufunc::vectorize<H>([](float p, float q) { return p - q; }, "sub");
  const auto f_sq2 = ufunc::vectorize<H>([](float p, float q) { return p * p + q * q; }, "sum_of_squares");
  const auto f_wexp = ufunc::vectorize<H>([](float r2, float w) { return ufunc::math::exp(-0.5f * r2) * w; }, "weighted_exp");
  std::printf("%-13s %9s %11s %11s %9s\n", "workload", "n", "ufunc us", "loop us", "vs loop");
  for (int e = 12; e <= top; e += 4) {
    const std::size_t n = std::size_t(1) << e;
    const auto sn = ufunc::shape{static_cast<ufunc::index_t>(n)};
    std::vector<float> hx(n), hy(n), hw(n), yl(n);
    std::uniform_real_distribution<float> u(-2.f, 2.f);
    for (std::size_t i = 0; i < n; ++i) hx[i] = u(rng), hy[i] = u(rng), hw[i] = u(rng);
    const float ca = 0.25f, cb = -0.5f;
    const auto x = ufunc::asarray<H>(hx, sn), yv = ufunc::asarray<H>(hy, sn), w = ufunc::asarray<H>(hw, sn);
    auto out = ufunc::empty<float, H>(sn);
    const auto expr = f_wexp.lazy(f_sq2.lazy(f_sub.lazy(x, ca), f_sub.lazy(yv, cb)), w);
    const auto loop = [&] {
      for (std::size_t i = 0; i < n; ++i) {
        const float p = hx[i] - ca, q = hy[i] - cb;
        yl[i] = ufunc::math::exp(-0.5f * (p * p + q * q)) * hw[i];
      }
    };
    ufunc::evaluate(expr, ufunc::out(out));
    loop();
    if (std::memcmp(out.data(), yl.data(), n * sizeof(float)) != 0) {
      std::printf("FAILED: the lazy expression differs from the loop at n = %zu\n", n);
      ok = false;
    }
    std::vector<double> t_u, t_l;
    const int inner = batch_for(n);
    for (int rep = 0; rep < (quick ? 7 : e <= 20 ? 31 : 9); ++rep) {
      t_u.push_back(per_call_us(inner, [&] { ufunc::evaluate(expr, ufunc::out(out)); }));
      t_l.push_back(per_call_us(inner, loop));
    }
    const double mu = median(t_u), ml = median(t_l);
    std::printf("%-13s %9zu %11.1f %11.1f %8.2fx\n", "lazy_expr", n, mu, ml, ml / mu);
    if (csv) {
      std::fprintf(csv, "lazy_expr,%zu,%d,ufunc,%.3f,%.3f\n", n, threads, mu, static_cast<double>(n) / mu);
      std::fprintf(csv, "lazy_expr,%zu,1,serial_loop,%.3f,%.3f\n", n, ml, static_cast<double>(n) / ml);
    }
  }
  // Pairwise kernel sum in 3-D: m = n sources, out[i] = sum_j exp(-|p_i - q_j|^2 / 2) b_j.
  using P3 = cuda::std::array<float, 3>;
  const auto kde = ufunc::map_reduce(
      [](const P3& p, const P3& q, float b) {
        const float dx = p[0] - q[0], dy = p[1] - q[1], dz = p[2] - q[2];
        return ufunc::math::exp(-0.5f * (dx * dx + dy * dy + dz * dz)) * b;
      },
      ufunc::plus{});
  std::printf("%-13s %9s %11s %11s %9s %11s\n", "workload", "n = m", "ufunc us", "loop us", "vs loop", "Gpairs/s");
  for (const ufunc::index_t n : quick ? std::vector<ufunc::index_t>{256, 1024} : std::vector<ufunc::index_t>{256, 1024, 4096}) {
    const auto un = static_cast<std::size_t>(n);
    std::vector<float> hp(3 * un), hq(3 * un), hb(un), rl(un);
    std::uniform_real_distribution<float> u(-1.f, 1.f);
    for (auto& v : hp) v = u(rng);
    for (auto& v : hq) v = u(rng);
    for (auto& v : hb) v = u(rng) * 0.5f + 0.5f;
    const auto P = ufunc::asarray<H>(hp, ufunc::shape{n, 1, 3}), Q = ufunc::asarray<H>(hq, ufunc::shape{1, n, 3});
    const auto B = ufunc::asarray<H>(hb, ufunc::shape{1, n});
    auto r = ufunc::empty<float, H>(ufunc::shape{n});
    const auto loop = [&] {
      for (std::size_t i = 0; i < un; ++i) {
        float acc = 0;
        for (std::size_t j = 0; j < un; ++j) {
          const float dx = hp[3 * i] - hq[3 * j], dy = hp[3 * i + 1] - hq[3 * j + 1], dz = hp[3 * i + 2] - hq[3 * j + 2];
          acc += ufunc::math::exp(-0.5f * (dx * dx + dy * dy + dz * dz)) * hb[j];
        }
        rl[i] = acc;
      }
    };
    kde(ufunc::vec<3>(P), ufunc::vec<3>(Q), B, ufunc::axis(1), ufunc::out(r));
    for (std::size_t i = 0; i < un; i += std::max<std::size_t>(1, un / 64)) {  // against double, sum|term| bound
      double want = 0, mag = 0;
      for (std::size_t j = 0; j < un; ++j) {
        double d2 = 0;
        for (int k = 0; k < 3; ++k) {
          const double d = double(hp[3 * i + k]) - hq[3 * j + k];
          d2 += d * d;
        }
        const double t = std::exp(-0.5 * d2) * hb[j];
        want += t, mag += std::fabs(t);
      }
      if (std::fabs(r.data()[i] - want) > (std::log2(double(n)) + 40) * 5.96e-8 * mag) {
        std::printf("FAILED: pairwise %zu at %zu: %.9g against %.9g\n", un, i, r.data()[i], want);
        ok = false;
        break;
      }
    }
    std::vector<double> t_u, t_l;
    for (int rep = 0; rep < (quick ? 3 : 7); ++rep) {
      auto t0 = clk::now();
      kde(ufunc::vec<3>(P), ufunc::vec<3>(Q), B, ufunc::axis(1), ufunc::out(r));
      t_u.push_back(us_since(t0));
      t0 = clk::now();
      loop();
      t_l.push_back(us_since(t0));
    }
    const double mu = median(t_u), ml = median(t_l), pairs = double(n) * double(n);
    std::printf("%-13s %9zu %11.1f %11.1f %8.2fx %11.3f\n", "pairwise_kde", un, mu, ml, ml / mu, pairs / mu / 1e3);
    if (csv) {
      std::fprintf(csv, "pairwise_kde,%zu,%d,ufunc,%.3f,%.3f\n", un, threads, mu, pairs / mu);
      std::fprintf(csv, "pairwise_kde,%zu,1,serial_loop,%.3f,%.3f\n", un, ml, pairs / ml);
    }
  }
  if (csv) std::fclose(csv);
  std::printf(ok ? "bench_host: all results checked\n" : "bench_host: FAILED\n");
  return ok ? 0 : 1;
}
