// Fused lazy expressions (issue 18): x * b + c as a lazy expression, as two
// eager calls and hand-fused into one functor, interleaved; dot = sum(lazy(x) *
// y) against map_reduce(mul, plus); argmax; N = 2^16 ... 2^hi float32. And the
// six-node expression gaussian_pdf(hypot(x - mx, y - my), 0, 1) * w with
// broadcast rows, 2048^2 ... 8192^2. Every result is checked first.
#include "sweep.hpp"

#include "../workloads_lazy.hpp"

namespace sweep {

void lazy_workloads(context& c) {
  using ufunc::index_t;
  using namespace workloads;
  const auto mul = ufunc::vectorize(mul_f{}, "mul");
  const auto add = ufunc::vectorize(add_f{}, "add");
  const auto sub = ufunc::vectorize(sub_f{}, "sub");
  const auto hyp = ufunc::vectorize(hypot_f{}, "hypot");
  const auto gauss = ufunc::vectorize(gauss_f{}, "gaussian_pdf");
  const auto fused = ufunc::vectorize(fma3_f{}, "fused");
  const auto dot_m = ufunc::map_reduce(mul_f{}, ufunc::plus{});
  const auto lim = bandwidth_limit(c, ufunc::cuda_backend);
  const int lo = c.cfg.quick ? c.cfg.lo : 16, hi = c.cfg.hi;
  const std::size_t max_n = std::size_t(1) << hi;
  const auto hx = uniform(max_n, 71), hb = uniform(max_n, 72), hc = uniform(max_n, 73);
  auto x = ufunc::to_device(hx), b = ufunc::to_device(hb), cc = ufunc::to_device(hc);
  auto y = ufunc::empty<float>(ufunc::shape{static_cast<index_t>(max_n)});
  auto r0 = ufunc::empty<float>(ufunc::shape{});
  auto ri = ufunc::empty<index_t>(ufunc::shape{});

  for (int e : exponents(lo, hi, c.cfg.quick ? 2 : 1)) {
    const std::size_t n = std::size_t(1) << e;
    const index_t ni = static_cast<index_t>(n);
    const std::string shp = shape_str({ni}), tag = " 2^" + std::to_string(e);
    const int k = static_cast<int>(std::min<std::size_t>(rotation_copies(16.0 * n), max_n / n));
    auto v = [&](ufunc::array<float>& a, int q) { return ufunc::make_view(a.data() + std::size_t(q) * n, ufunc::shape{ni}); };

    // x * b + c into out: lazy, eager (two calls), hand-fused
    c.rec.progress("fma_chain" + tag);
    {
      auto out = ufunc::empty<float>(ufunc::shape{ni});
      ufunc::evaluate(add.lazy(mul.lazy(v(x, 0), v(b, 0)), v(cc, 0)), ufunc::out(out));
      const auto got = out.to_host();
      bool ok = true;
      for (std::size_t i = 0; i < n && ok; ++i)
        ok = close(got[i], double(hx[i]) * hb[i] + hc[i], 1e-6, std::fabs(hx[i] * hb[i]) + std::fabs(hc[i]), 1e-7);
      if (c.rec.check(ok, "fma_chain lazy" + tag)) {
        int r1 = 0, r2 = 0, r3 = 0;
        const auto t = measure_interleaved<ufunc::target::device>(
            {[&] {
               const int q = r1++ % k;
               ufunc::evaluate(add.lazy(mul.lazy(v(x, q), v(b, q)), v(cc, q)), ufunc::out(v(y, q)));
             },
             [&] {
               const int q = r2++ % k;
               add(mul(v(x, q), v(b, q)), v(cc, q), ufunc::out(v(y, q)));
             },
             [&] {
               const int q = r3++ % k;
               fused(v(x, q), v(b, q), v(cc, q), ufunc::out(v(y, q)));
             }},
            c.cfg.device);
        const double bytes = 16.0 * n;  // three reads, one write (the fused minimum)
        c.rec.row("fma_chain", "ufunc lazy add(mul(x, b), c)", shp, "float32", double(n), t[0], bytes, "GB/s", lim.first, lim.second);
        c.rec.row("fma_chain", "ufunc eager add(mul(x, b), c)", shp, "float32", double(n), t[1], bytes, "GB/s", lim.first, lim.second);
        c.rec.row("fma_chain", "ufunc hand-fused x*b+c", shp, "float32", double(n), t[2], bytes, "GB/s", lim.first, lim.second);
      }
    }
    // dot and argmax
    c.rec.progress("dot, argmax" + tag);
    {
      double want = 0, mag = 0;
      for (std::size_t i = 0; i < n; ++i) want += double(hx[i]) * hb[i], mag += std::fabs(double(hx[i]) * hb[i]);
      const double tol = 2.0 * e * std::ldexp(1.0, -24);
      const bool ok1 = c.rec.check(close(ufunc::sum(ufunc::lazy(v(x, 0)) * v(b, 0)), want, tol, mag, 1e-6), "dot lazy" + tag);
      const bool ok2 = c.rec.check(close(dot_m(v(x, 0), v(b, 0)), want, tol, mag, 1e-6), "dot map_reduce" + tag);
      if (ok1 && ok2) {
        int r1 = 0, r2 = 0;
        const auto t = measure_interleaved<ufunc::target::device>(
            {[&] { const int q = r1++ % k; ufunc::sum(ufunc::lazy(v(x, q)) * v(b, q), ufunc::out(r0)); },
             [&] { const int q = r2++ % k; dot_m(v(x, q), v(b, q), ufunc::out(r0)); }},
            c.cfg.device);
        c.rec.row("dot", "ufunc sum(lazy(x) * y)", shp, "float32", double(n), t[0], 8.0 * n, "GB/s", lim.first, lim.second);
        c.rec.row("dot", "ufunc map_reduce(mul, plus)", shp, "float32", double(n), t[1], 8.0 * n, "GB/s", lim.first, lim.second);
      }
      const auto am = std::max_element(hx.begin(), hx.begin() + static_cast<std::ptrdiff_t>(n)) - hx.begin();
      if (c.rec.check(ufunc::argmax(v(x, 0)) == am, "argmax" + tag)) {
        int r1 = 0;
        c.rec.row("argmax", "ufunc argmax", shp, "float32", double(n),
                  measure<ufunc::target::device>([&] { ufunc::argmax(v(x, r1++ % k), ufunc::out(ri)); }, c.cfg.device),
                  4.0 * n, "GB/s", lim.first, lim.second);
      }
    }
  }

  // six nodes with broadcast rows
  for (index_t m : c.cfg.quick ? std::vector<index_t>{128} : std::vector<index_t>{2048, 4096, 8192}) {
    const std::size_t mm = std::size_t(m * m);
    const std::string shp = shape_str({m, m});
    c.rec.progress("six_node " + shp);
    const auto hX = uniform(mm, 81), hY = uniform(mm, 82), hW = uniform(mm, 83);
    const auto hmx = uniform(std::size_t(m), 84), hmy = uniform(std::size_t(m), 85);
    auto X = ufunc::to_device(hX, {m, m}), Y = ufunc::to_device(hY, {m, m}), W = ufunc::to_device(hW, {m, m});
    auto MX = ufunc::to_device(hmx, {1, m}), MY = ufunc::to_device(hmy, {1, m});
    auto R = ufunc::empty<float>({m, m});
    const auto ex = gauss.lazy(hyp.lazy(sub.lazy(X, MX), sub.lazy(Y, MY)), 0.0f, 1.0f) * W;
    ufunc::evaluate(ex, ufunc::out(R));
    const auto got = R.to_host();
    bool ok = true;
    for (std::size_t q = 0; q < mm && ok; ++q) {
      const std::size_t j = q % std::size_t(m);
      const float want = six_f{}(hX[q], hmx[j], hY[q], hmy[j], hW[q]);
      ok = close(got[q], want, 1e-5, std::fabs(want), 1e-7);
    }
    if (!c.rec.check(ok, "six_node " + shp)) continue;
    const auto six = ufunc::vectorize(six_f{}, "six");
    const auto t = measure_interleaved<ufunc::target::device>(
        {[&] { ufunc::evaluate(ex, ufunc::out(R)); }, [&] { six(X, MX, Y, MY, W, ufunc::out(R)); }}, c.cfg.device);
    const double bytes = 4.0 * (4.0 * double(mm) + 2.0 * double(m));
    c.rec.row("six_node", "ufunc lazy expression", shp, "float32", double(mm), t[0], bytes, "GB/s", lim.first, lim.second);
    c.rec.row("six_node", "ufunc hand-fused functor", shp, "float32", double(mm), t[1], bytes, "GB/s", lim.first, lim.second);
  }
}

}  // namespace sweep
