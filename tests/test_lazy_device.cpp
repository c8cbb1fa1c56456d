// Lazy expressions on every target of the build, in one compact set of cases
// (test_lazy.cpp holds the random-tree suite; it compiles as C++ and runs the
// host target: under nvcc its many expression types took over ten minutes on 16
// cores). Here each kernel path an expression can take runs at least once on
// the CUDA target: flat, rows (broadcast leaves), tiles (a transposed leaf), in
// place, a fused eager call, 16 leaves, and the reductions (whole, both axis
// layouts, argmax, a map over an expression and an array), all against host
// references on fresh random data.
#include "test_support.hpp"

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

namespace {

using ufunc::index_t;
using ufunc::shape;

template <class Tg>
void lazy_cases() {
  auto mul = ufunc::vectorize<Tg>([] UFUNC_HD(float a, float b) { return a * b; }, "mul");
  auto add = ufunc::vectorize<Tg>([] UFUNC_HD(float a, float b) { return a + b; }, "add");
  const std::uint64_t seed = test::fresh_seed();
  INFO("target " << Tg::name << ", seed " << seed);
  std::mt19937_64 rng(seed);
  const index_t m = 40 + static_cast<index_t>(rng() % 200), n = 40 + static_cast<index_t>(rng() % 700);
  INFO("shape (" << m << ", " << n << ")");
  const auto hx = test::random_vector<float>(std::size_t(m * n), rng(), -2, 2);
  const auto hb = test::random_vector<float>(std::size_t(n), rng(), -2, 2);
  const auto hc = test::random_vector<float>(std::size_t(m * n), rng(), -2, 2);
  const auto ht = test::random_vector<float>(std::size_t(m * n), rng(), -2, 2);  // stored (n, m)
  auto x = ufunc::asarray<Tg>(hx, shape{m, n});
  auto b = ufunc::asarray<Tg>(hb, shape{n});
  auto c = ufunc::asarray<Tg>(hc, shape{m, n});
  auto t = ufunc::asarray<Tg>(ht, shape{n, m});
  auto at = [&](std::size_t i, std::size_t j) { return std::size_t(i) * std::size_t(n) + j; };
  const auto N = std::size_t(n), M = std::size_t(m);

  // add(mul(x, b), c): b broadcasts along rows. Contraction into an fma may
  // differ from the rounded product plus c by one rounding of the product.
  const auto e = add.lazy(mul.lazy(x, b), c);
  CHECK(e.shape() == shape{m, n});
  std::vector<double> ref(M * N), mag(M * N);
  for (std::size_t i = 0; i < M; ++i)
    for (std::size_t j = 0; j < N; ++j) {
      const double p = double(hx[at(i, j)]) * hb[j];
      ref[at(i, j)] = p + hc[at(i, j)];
      mag[at(i, j)] = std::fabs(p) + std::fabs(hc[at(i, j)]);
    }
  auto close = [&](const std::vector<float>& got, const std::vector<double>& want, const std::vector<double>& scale) {
    std::size_t bad = 0;
    for (std::size_t k = 0; k < got.size(); ++k) bad += !(std::fabs(got[k] - want[k]) <= 4e-7 * scale[k] + 1e-30);
    return bad;
  };
  ufunc::array<float, Tg> y = ufunc::evaluate(e);
  CHECK(close(y.to_host(), ref, mag) == 0);

  // The same as an eager call taking an expression: fused into that call.
  auto y2 = add(mul.lazy(x, b), c);
  CHECK(close(y2.to_host(), ref, mag) == 0);

  // A transposed leaf (the shared-memory tile path on the CUDA target) with
  // operators: t.T * 2 + c, into a strided out (every other column of a wider array).
  const auto et = ufunc::lazy(t.view().transposed()) * 2.0f + c;
  auto wide = ufunc::full<float, Tg>(shape{m, 2 * n}, -7.0f);
  auto ov = wide.view().sliced(1, 0, 2 * n, 2);
  ufunc::evaluate(et, ufunc::out(ov));
  {
    const auto hw = wide.to_host();
    std::size_t bad = 0, touched = 0;
    for (std::size_t i = 0; i < M; ++i)
      for (std::size_t j = 0; j < N; ++j) {
        const float want = ht[j * M + i] * 2.0f + hc[at(i, j)];
        bad += !(std::fabs(hw[i * 2 * N + 2 * j] - want) <= 4e-7f * (std::fabs(want) + 4.0f));
        touched += hw[i * 2 * N + 2 * j + 1] != -7.0f;
      }
    CHECK(bad == 0);
    CHECK(touched == 0);
  }

  // In place: out exactly a leaf. A partial overlap is refused, out untouched.
  auto z = ufunc::asarray<Tg>(hc, shape{m, n});
  ufunc::evaluate(ufunc::lazy(z) * 2.0f + x, ufunc::out(z));
  {
    const auto hz = z.to_host();
    std::size_t bad = 0;
    for (std::size_t k = 0; k < hz.size(); ++k) bad += !(std::fabs(hz[k] - (hc[k] * 2.0f + hx[k])) <= 1e-6f);
    CHECK(bad == 0);
  }
  const auto before = z.to_host();
  auto shifted = z.view().sliced(1, 1, n);  // overlaps z, but not element for element
  CHECK(test::message_of<ufunc::shape_error>([&] { ufunc::evaluate(ufunc::lazy(z.view().sliced(1, 0, n - 1)) * 2.0f, ufunc::out(shifted)); })
            .find("partially overlaps") != std::string::npos);
  CHECK(z.to_host() == before);

  // 16 leaves (one array, 15 more uses of it and scalars would be the same operands).
  const auto e16 = ((ufunc::lazy(x) + x + x + x) + (ufunc::lazy(c) + c + c + c)) +
                   ((ufunc::lazy(x) + c + x + c) + (ufunc::lazy(c) + x + c + x));
  static_assert(std::decay_t<decltype(e16)>::leaf_count == 16);
  {
    const auto h16 = ufunc::evaluate(e16).to_host();
    std::size_t bad = 0;
    for (std::size_t k = 0; k < h16.size(); ++k)
      bad += !(std::fabs(h16[k] - (8.0 * hx[k] + 8.0 * hc[k])) <= 1e-5 * (8 * std::fabs(hx[k]) + 8 * std::fabs(hc[k])));
    CHECK(bad == 0);
  }

  // Reductions of the expression, against sums of the double reference.
  double total = 0, total_mag = 0;
  for (std::size_t k = 0; k < ref.size(); ++k) total += ref[k], total_mag += mag[k];
  const float s = ufunc::sum(e);
  CHECK(std::fabs(s - total) <= 1e-5 * total_mag);
  for (int ax : {0, 1}) {
    INFO("axis " << ax);
    const auto r = ufunc::sum(e, ufunc::axis(ax)).to_host();
    REQUIRE(r.size() == (ax == 0 ? N : M));
    std::size_t bad = 0;
    for (std::size_t o = 0; o < r.size(); ++o) {
      double w = 0, wm = 0;
      for (std::size_t k = 0; k < (ax == 0 ? M : N); ++k) {
        const std::size_t q = ax == 0 ? at(k, o) : at(o, k);
        w += ref[q], wm += mag[q];
      }
      bad += !(std::fabs(r[o] - w) <= 1e-5 * wm + 1e-6);
    }
    CHECK(bad == 0);
  }
  // argmax of t.T * 2 + c (exact: the values are computed the same way here).
  const auto hev = ufunc::evaluate(et).to_host();
  CHECK(static_cast<std::size_t>(ufunc::argmax(et)) ==
        static_cast<std::size_t>(std::max_element(hev.begin(), hev.end()) - hev.begin()));
  {
    const auto am = ufunc::argmax(et, ufunc::axis(1)).to_host();
    std::size_t bad = 0;
    for (std::size_t i = 0; i < M; ++i)
      bad += am[i] != std::max_element(hev.begin() + long(i * N), hev.begin() + long((i + 1) * N)) - (hev.begin() + long(i * N));
    CHECK(bad == 0);
  }
  // A map over an expression and an array.
  const auto dot = ufunc::map_reduce(mul.function(), ufunc::plus{});
  double d = 0, dm = 0;
  for (std::size_t k = 0; k < ref.size(); ++k) d += ref[k] * hx[k], dm += mag[k] * std::fabs(hx[k]);
  CHECK(std::fabs(dot(e, x) - d) <= 1e-5 * dm);
}

}  // namespace

TEST_CASE("lazy (every target): each kernel path of an expression, reductions and errors, against host references") {
  test::for_each_target([](auto tg) { lazy_cases<decltype(tg)>(); });
}
