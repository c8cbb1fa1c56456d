// Lazy expressions (issue 18) against their references, each timed
// interleaved with its reference in one run: a fused expression against the same
// math hand-fused into one lambda; the bandwidth targets (six-node expression,
// dot, argmax, axis sums of an expression, mixed layouts) against a reference
// pass over the same bytes, a device copy for what reads and writes, a read
// kernel for reductions (thresholds: the old fractions of peak over the
// reference's fraction of peak on the H100, bench_util.hpp, bandwidth_target).
// Results are checked against host references first.
#include "bench_copy.cuh"
#include "bench_util.hpp"
#include "workloads_lazy.hpp"

#include <cmath>
#include <cstdio>
#include <random>
#include <vector>

namespace {

using namespace workloads;  // mul_f ... six_f

/// got[i] within rel * scale[i] of want[i] (scale: the magnitude of the terms,
/// since a contracted x * b + c may differ from the rounded product plus c).
bool close_all(const char* what, const std::vector<float>& got, const std::vector<float>& want, double rel,
               const std::vector<float>* scale = nullptr) {
  for (std::size_t i = 0; i < got.size(); ++i)
    if (!(std::fabs(got[i] - want[i]) <= rel * ((scale ? (*scale)[i] : std::fabs(want[i])) + 1e-30))) {
      std::printf("CHECK FAILED: %s[%zu] = %.9g, reference %.9g\n", what, i, got[i], want[i]);
      return false;
    }
  return true;
}

}  // namespace

int main() {
  const auto dev = bench_device("bench_lazy", with_memory_clock);
  if (!dev) return 77;
  const double peak = dev->peak_bandwidth();
  const int sms = dev->multiprocessors;
  bool correct = true;
  std::mt19937_64 rng(2026);
  std::normal_distribution<float> nd(0.0f, 1.0f);
  auto random = [&](std::size_t n) {
    std::vector<float> v(n);
    for (auto& x : v) x = nd(rng);
    return v;
  };
  const auto mul = ufunc::vectorize(mul_f{}, "mul");
  const auto add = ufunc::vectorize(add_f{}, "add");
  const auto sub = ufunc::vectorize(sub_f{}, "sub");
  const auto hyp = ufunc::vectorize(hypot_f{}, "hypot");
  const auto gauss = ufunc::vectorize(gauss_f{}, "gaussian_pdf");

  // ---- add(mul(x, b), c), 2^27 float32 into out ------------------------------
  const std::size_t n = std::size_t(1) << 27;
  {
    const auto hx = random(n), hb = random(n), hc = random(n);
    auto x = ufunc::to_device(hx), b = ufunc::to_device(hb), c = ufunc::to_device(hc);
    auto y = ufunc::empty<float>(ufunc::shape{static_cast<ufunc::index_t>(n)});
    const auto fused = ufunc::vectorize(fma3_f{}, "fused");
    const auto e = add.lazy(mul.lazy(x, b), c);
    ufunc::evaluate(e, ufunc::out(y));
    std::vector<float> want(n), mag(n);
    for (std::size_t i = 0; i < n; ++i)
      want[i] = hx[i] * hb[i] + hc[i], mag[i] = std::fabs(hx[i] * hb[i]) + std::fabs(hc[i]);
    correct &= close_all("add(mul(x, b), c)", y.to_host(), want, 1e-6, &mag);
    const auto [t_hand, t_lazy] =
        time_interleaved_ms([&] { fused(x, b, c, ufunc::out(y)); }, [&] { ufunc::evaluate(e, ufunc::out(y)); });
    const auto [t_hand2, t_eager] = time_interleaved_ms([&] { fused(x, b, c, ufunc::out(y)); },
                                                        [&] { add(mul(x, b), c, ufunc::out(y)); }, 7);
    (void)t_hand2;
    report("hand-fused x*b+c 2^27 f32 into out: time", t_hand, "ms");
    report("lazy add(mul(x, b), c) into out: time", t_lazy, "ms");
    report("eager add(mul(x, b), c) into out (two calls): time", t_eager, "ms");
    report("lazy time / hand-fused time", t_lazy / t_hand, "ratio", "<= 1.03", t_lazy / t_hand <= 1.03);
  }

  // ---- six nodes with broadcasting: gaussian_pdf(hypot(x - mx, y - my), 0, 1) * w
  {
    const ufunc::index_t m = 8192, k = 8192;  // m * k = 2^26
    const auto hx = random(std::size_t(m * k)), hy = random(std::size_t(m * k)), hw = random(std::size_t(m * k));
    const auto hmx = random(std::size_t(k)), hmy = random(std::size_t(k));
    auto x = ufunc::to_device(hx, {m, k}), y = ufunc::to_device(hy, {m, k}), w = ufunc::to_device(hw, {m, k});
    auto mx = ufunc::to_device(hmx, {1, k}), my = ufunc::to_device(hmy, {1, k});
    auto r = ufunc::empty<float>({m, k});
    const auto e = gauss.lazy(hyp.lazy(sub.lazy(x, mx), sub.lazy(y, my)), 0.0f, 1.0f) * w;
    ufunc::evaluate(e, ufunc::out(r));
    std::vector<float> want(std::size_t(m * k));
    for (ufunc::index_t i = 0; i < m; ++i)
      for (ufunc::index_t j = 0; j < k; ++j) {
        const std::size_t q = std::size_t(i * k + j);
        want[q] = six_f{}(hx[q], hmx[std::size_t(j)], hy[q], hmy[std::size_t(j)], hw[q]);
      }
    correct &= close_all("six-node expression", r.to_host(), want, 1e-5);
    const auto six = ufunc::vectorize(six_f{}, "six");
    const double bytes = 4.0 * (4.0 * double(m * k) + 2.0 * double(k));  // leaf reads and the one write
    const bench_reference copy(bench_pass::copy, bytes, sms);
    const auto t = time_interleaved_ms(
        {[&] { copy(); }, [&] { six(x, mx, y, my, w, ufunc::out(r)); }, [&] { ufunc::evaluate(e, ufunc::out(r)); }},
        15, 5);
    const double t_copy = t[0], t_hand = t[1], t_lazy = t[2];
    report_bandwidth("six-node expression (8192, 8192) f32: bandwidth", copy.name(), bytes, t_lazy, t_copy, peak,
                     {0.85, h100::copy_1gib});
    report("  its time / the same math hand-fused", t_lazy / t_hand, "ratio");
  }

  // ---- reductions of expressions ----------------------------------------------
  {
    const auto hx = random(n), hy = random(n);
    auto x = ufunc::to_device(hx), y = ufunc::to_device(hy);
    auto r0 = ufunc::empty<float>(ufunc::shape{});
    auto ri = ufunc::empty<ufunc::index_t>(ufunc::shape{});
    double dref = 0, dabs = 0;
    for (std::size_t i = 0; i < n; ++i) dref += double(hx[i]) * hy[i], dabs += std::fabs(double(hx[i]) * hy[i]);
    const float got = ufunc::sum(ufunc::lazy(x) * y);
    if (!(std::fabs(got - dref) <= 27 * std::ldexp(1.0, -24) * dabs)) {
      std::printf("CHECK FAILED: sum(x * y) = %.9g, reference %.9g\n", got, dref);
      correct = false;
    }
    const auto am_want = std::max_element(hx.begin(), hx.end()) - hx.begin();
    if (ufunc::argmax(x) != am_want) {
      std::printf("CHECK FAILED: argmax(x) = %lld, reference %lld\n", (long long)ufunc::argmax(x), (long long)am_want);
      correct = false;
    }
    const auto dot_e = ufunc::lazy(x) * y;
    const auto dot_m = ufunc::map_reduce(mul_f{}, ufunc::plus{});
    const double bytes = double(n) * 4;
    double t_cub = 0, t_dot = 0, t_read2 = 0;
    {
      const bench_reference read2(bench_pass::read, 2 * bytes, sms);
      const auto t = time_interleaved_ms(
          {[&] { read2(); }, [&] { ufunc::sum(x, ufunc::out(r0)); }, [&] { ufunc::sum(dot_e, ufunc::out(r0)); }}, 15, 5);
      t_read2 = t[0], t_cub = t[1], t_dot = t[2];
    }
    report("sum(x) 2^27 f32 (CUB path): bandwidth / peak", bytes / t_cub / 1e-3 / peak, "ratio");
    report_bandwidth("dot = sum(lazy(x) * y) 2^27 f32: read bandwidth", "read kernel", 2 * bytes, t_dot, t_read2, peak,
                     {0.85, h100::read_512mib});
    const double t_mr = time_device_ms([&] { dot_m(x, y, ufunc::out(r0)); });
    report("dot = map_reduce(mul, plus)(x, y): read bandwidth / peak", 2 * bytes / t_mr / 1e-3 / peak, "ratio");
    // Timed as dot is (batches of back-to-back calls, interleaved with the
    // reference and the CUB sum of the same bytes), and once more one call
    // between two events.
    double t_sum = 0, t_am = 0, t_read = 0;
    {
      const bench_reference read(bench_pass::read, bytes, sms);
      const auto t = time_interleaved_ms(
          {[&] { read(); }, [&] { ufunc::sum(x, ufunc::out(r0)); }, [&] { ufunc::argmax(x, ufunc::out(ri)); }}, 15, 5);
      t_read = t[0], t_sum = t[1], t_am = t[2];
    }
    report_bandwidth("argmax 2^27 f32: read bandwidth", "read kernel", bytes, t_am, t_read, peak,
                     {0.85, h100::read_512mib});
    report("  argmax time / CUB sum time (same bytes)", t_am / t_sum, "ratio");
    const double t_am1 = time_device_ms([&] { ufunc::argmax(x, ufunc::out(ri)); });
    report("  argmax, one call between two events", bytes / t_am1 / 1e-3 / peak, "ratio");

    // Axis reductions of a two-leaf expression, 8192^2.
    const ufunc::index_t s = 8192;
    auto X = ufunc::to_device(std::vector<float>(hx.begin(), hx.begin() + s * s), {s, s});
    auto Y = ufunc::to_device(std::vector<float>(hy.begin(), hy.begin() + s * s), {s, s});
    auto rs = ufunc::empty<float>({s});
    const auto e2 = ufunc::lazy(X) * Y;
    for (int ax : {0, 1}) {
      ufunc::sum(e2, ufunc::axis(ax), ufunc::out(rs));
      const auto got_axis = rs.to_host();
      for (ufunc::index_t q : {ufunc::index_t(0), s / 3, s - 1}) {
        double want = 0, mag = 0;
        for (ufunc::index_t i = 0; i < s; ++i) {
          const std::size_t at = ax == 0 ? std::size_t(i * s + q) : std::size_t(q * s + i);
          want += double(hx[at]) * hy[at], mag += std::fabs(double(hx[at]) * hy[at]);
        }
        if (!(std::fabs(got_axis[std::size_t(q)] - want) <= 16 * std::ldexp(1.0, -24) * mag)) {
          std::printf("CHECK FAILED: sum(x * y, axis %d)[%lld] = %.9g, reference %.9g\n", ax, (long long)q,
                      got_axis[std::size_t(q)], want);
          correct = false;
        }
      }
      // One call between two events, as before the reference came in (25 each);
      // the reference reads the two leaves (the 32 KiB written are left out).
      const double abytes = 2.0 * double(s * s) * 4;
      const bench_reference read(bench_pass::read, abytes, sms);
      const auto [t_read, t] =
          time_interleaved_ms([&] { read(); }, [&] { ufunc::sum(e2, ufunc::axis(ax), ufunc::out(rs)); }, 25, 1);
      report_bandwidth("sum(lazy(X) * Y, axis " + std::to_string(ax) + ") 8192^2 f32: read bandwidth", read.name(),
                       abytes, t, t_read, peak, {0.80, h100::read_512mib});
    }
  }

  // ---- mixed layouts: add(A.transposed(), B), 8192^2 float32 into out -------
  {
    const ufunc::index_t s = 8192;
    const auto ha = random(std::size_t(s * s)), hb = random(std::size_t(s * s));
    auto A = ufunc::to_device(ha, {s, s}), B = ufunc::to_device(hb, {s, s});
    auto C = ufunc::empty<float>({s, s});
    add(A.view().transposed(), B, ufunc::out(C));
    {
      const auto got = C.to_host();
      bool ok = true;
      for (ufunc::index_t i = 0; i < s && ok; i += 97)
        for (ufunc::index_t j = 0; j < s && ok; ++j)
          ok = got[std::size_t(i * s + j)] == ha[std::size_t(j * s + i)] + hb[std::size_t(i * s + j)];
      if (!ok) std::printf("CHECK FAILED: add(A.T, B)\n");
      correct &= ok;
    }
    const double bytes = 3.0 * double(s * s) * 4;
    const auto e = ufunc::lazy(A.view().transposed()) + B;
    const bench_reference copy(bench_pass::copy, bytes, sms);  // 384 MiB read + 384 MiB written
    // One call between two events, as before the reference came in (25 each).
    const auto t = time_interleaved_ms({[&] { copy(); }, [&] { add(A.view().transposed(), B, ufunc::out(C)); },
                                        [&] { ufunc::evaluate(e, ufunc::out(C)); }},
                                       25, 1);
    const double t_copy = t[0], t_eager = t[1], t_lazy = t[2];
    report_bandwidth("add(A.T, B) 8192^2 f32 into out: bandwidth", copy.name(), bytes, t_eager, t_copy, peak,
                     {0.75, h100::copy_512mib});
    report_bandwidth("evaluate(lazy(A.T) + B) 8192^2 f32: bandwidth", copy.name(), bytes, t_lazy, t_copy, peak,
                     {0.75, h100::copy_512mib});
  }

  std::printf("\nresults checked against host references: %s\n", correct ? "ok" : "MISMATCH");
  summary("bench_lazy");
  return correct ? 0 : 1;
}
