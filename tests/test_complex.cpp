// cuda::std::complex<float> and <double> as element types: elementwise calls of
// user functions (arithmetic, conj, abs, a real scalar broadcast), and sum,
// prod and mean, whole and along each axis of contiguous and transposed
// arrays, as NumPy's: the result is the element type (complex64 sums and means
// are complex64). References in std::complex<double> (long double for
// complex<double> inputs) from the same inputs, with the bounds the
// reductions state: sums per component within (log2 N + 32) eps sum|part|,
// products of N factors within (N + 2) 4 eps prod|x|, means the sum's bound / N
// plus eps |mean|. Fresh random data each run.
#include "test_support.hpp"

#include <cuda/std/complex>

#include <cmath>
#include <complex>
#include <random>
#include <type_traits>
#include <vector>

namespace {

using ufunc::index_t;
using ufunc::shape;
using R = long double;
using ref_c = std::complex<R>;

template <class C>
using part_t = typename C::value_type;

template <class C>
R eps_of() {
  return std::is_same_v<part_t<C>, float> ? R(0x1p-24) : R(0x1p-53);
}

template <class C>
ref_c to_ref(const C& c) {
  return {static_cast<R>(c.real()), static_cast<R>(c.imag())};
}

/// Random values: parts in [-1, 1], or (unit) a modulus in [0.9, 1.1] at a
/// random angle (products of many).
template <class C>
std::vector<C> random_complex(std::size_t n, std::uint64_t seed, bool unit) {
  std::mt19937_64 g(seed);
  std::uniform_real_distribution<double> u(-1, 1), mod(0.9, 1.1), ang(-3.14159, 3.14159);
  std::vector<C> v(n);
  for (auto& c : v) {
    if (unit) {
      const double r = mod(g), a = ang(g);
      c = C(static_cast<part_t<C>>(r * std::cos(a)), static_cast<part_t<C>>(r * std::sin(a)));
    } else {
      c = C(static_cast<part_t<C>>(u(g)), static_cast<part_t<C>>(u(g)));
    }
  }
  return v;
}

// ---- elementwise -----------------------------------------------------------------

template <class Tg, class C>
void elementwise_cases(std::uint64_t seed) {
  using P = part_t<C>;
  const index_t n = 3001;
  const auto ha = random_complex<C>(static_cast<std::size_t>(n), seed, false);
  const auto hb = random_complex<C>(static_cast<std::size_t>(n), seed + 1, false);
  const auto a = ufunc::asarray<Tg>(ha, shape(n));
  const auto b = ufunc::asarray<Tg>(hb, shape(n));
  const auto fma_conj = ufunc::vectorize<Tg>([] UFUNC_HD(C x, C y) { return x * cuda::std::conj(y) + C(1, -2); });
  const auto modulus = ufunc::vectorize<Tg>([] UFUNC_HD(C x) { return cuda::std::abs(x); });
  const auto scale = ufunc::vectorize<Tg>([] UFUNC_HD(C x, P s) { return x * s; });
  const auto r1 = fma_conj(a, b);
  const auto r2 = modulus(a);
  const auto r3 = scale(a.view().sliced(0, n - 1, -n - 1, -1), P(2.5));  // reversed, a scalar broadcast
  static_assert(std::is_same_v<typename decltype(r1)::value_type, C>);
  static_assert(std::is_same_v<typename decltype(r2)::value_type, P>);
  static_assert(std::is_same_v<typename decltype(r3)::value_type, C>);
  const auto g1 = r1.to_host();
  const auto g2 = r2.to_host();
  const auto g3 = r3.to_host();
  const R e = eps_of<C>();
  std::size_t bad = 0;
  for (std::size_t i = 0; i < ha.size(); ++i) {
    const ref_c x = to_ref(ha[i]), y = to_ref(hb[i]);
    const ref_c w1 = x * std::conj(y) + ref_c(1, -2);
    bad += !(std::abs(to_ref(g1[i]) - w1) <= 8 * e * (std::abs(x) * std::abs(y) + std::abs(ref_c(1, -2))));
    bad += !(std::fabs(static_cast<R>(g2[i]) - std::abs(x)) <= 4 * e * std::abs(x));
    const ref_c w3 = to_ref(ha[ha.size() - 1 - i]) * R(2.5);
    bad += !(std::abs(to_ref(g3[i]) - w3) <= 4 * e * std::abs(w3));
  }
  CHECK(bad == 0);
}

// ---- reductions ------------------------------------------------------------------

/// The reference of one output: the elements of x (row-major `dims`, read
/// through `strides`) whose multi-index matches `keep` outside the reduced axis
/// `ax` (ax < 0: all of them).
template <class C, class Fn>
void for_reduced(const std::vector<C>& h, const std::vector<index_t>& dims, const std::vector<index_t>& strides,
                 int ax, std::vector<index_t> idx, Fn&& fn) {
  const index_t total = test::count_of(dims);
  for (index_t lin = 0; lin < total; ++lin) {
    const auto id = test::unravel(lin, dims);
    bool match = true;
    for (std::size_t d = 0; d < dims.size(); ++d)
      if (ax >= 0 && static_cast<int>(d) != ax && id[d] != idx[d]) match = false;
    if (!match) continue;
    index_t off = 0;
    for (std::size_t d = 0; d < dims.size(); ++d) off += id[d] * strides[d];
    fn(h[static_cast<std::size_t>(off)]);
  }
}

enum red_kind { r_sum, r_prod, r_mean };

/// Checks `got` (row-major over the result dims) against the references.
template <class C>
void check_reduction(red_kind k, const std::vector<C>& got, const std::vector<C>& h, const std::vector<index_t>& dims,
                     const std::vector<index_t>& strides, int ax) {
  std::vector<index_t> rdims;
  for (std::size_t d = 0; d < dims.size(); ++d)
    if (ax >= 0 && static_cast<int>(d) != ax) rdims.push_back(dims[d]);
  REQUIRE(static_cast<index_t>(got.size()) == test::count_of(rdims));
  const R e = eps_of<C>();
  std::size_t bad = 0;
  for (index_t o = 0; o < static_cast<index_t>(got.size()); ++o) {
    std::vector<index_t> idx(dims.size(), 0);
    const auto rid = test::unravel(o, rdims);
    for (std::size_t d = 0, j = 0; d < dims.size(); ++d)
      if (ax >= 0 && static_cast<int>(d) != ax) idx[d] = rid[j++];
    ref_c acc = k == r_prod ? ref_c(1, 0) : ref_c(0, 0);
    R sre = 0, sim = 0, pmod = 1, n = 0;
    for_reduced(h, dims, strides, ax, idx, [&](const C& c) {
      const ref_c v = to_ref(c);
      acc = k == r_prod ? acc * v : acc + v;
      sre += std::fabs(v.real()), sim += std::fabs(v.imag()), pmod *= std::abs(v), n += 1;
    });
    const ref_c g = to_ref(got[static_cast<std::size_t>(o)]);
    const R lg = std::log2(std::max<R>(n, 2)) + 32;
    bool ok;
    if (k == r_prod) {
      ok = std::abs(g - acc) <= (n + 2) * 4 * e * pmod;
    } else if (k == r_sum) {
      ok = std::fabs(g.real() - acc.real()) <= lg * e * sre && std::fabs(g.imag() - acc.imag()) <= lg * e * sim;
    } else {
      const ref_c m = acc / n;
      ok = std::fabs(g.real() - m.real()) <= lg * e * sre / n + e * std::abs(m) &&
           std::fabs(g.imag() - m.imag()) <= lg * e * sim / n + e * std::abs(m);
    }
    bad += !ok;
  }
  INFO("kind " << k << " dims " << test::dims_str(dims) << " axis " << ax);
  CHECK(bad == 0);
}

template <class Tg, class C>
void reduction_cases(std::uint64_t seed) {
  std::mt19937_64 g(seed);
  for (int rep = 0; rep < 6; ++rep) {
    for (const red_kind k : {r_sum, r_prod, r_mean}) {
      const int nd = 1 + static_cast<int>(g() % 3);
      std::vector<index_t> dims;
      for (int d = 0; d < nd; ++d) dims.push_back(static_cast<index_t>(1 + g() % (k == r_prod ? 12 : nd == 1 ? 5000 : nd == 2 ? 70 : 16)));
      const auto h = random_complex<C>(static_cast<std::size_t>(test::count_of(dims)), g(), k == r_prod);
      const auto base = ufunc::asarray<Tg>(h, shape(dims));
      // The array itself, or its transpose (the reference reads the base through the
      // transposed dims and strides).
      const bool tr = nd > 1 && g() % 2;
      std::vector<index_t> vd = dims, vs = test::row_major(dims);
      if (tr) {
        std::reverse(vd.begin(), vd.end());
        std::reverse(vs.begin(), vs.end());
      }
      const ufunc::array_view<const C, Tg> x(base.data(), shape(vd), vs);
      const auto run_whole = [&]() -> C {
        if (k == r_sum) return ufunc::sum(x);
        if (k == r_prod) return ufunc::prod(x);
        return ufunc::mean(x);
      };
      static_assert(std::is_same_v<decltype(ufunc::sum(x)), C> && std::is_same_v<decltype(ufunc::prod(x)), C> &&
                    std::is_same_v<decltype(ufunc::mean(x)), C>);
      check_reduction<C>(k, {run_whole()}, h, vd, vs, -1);
      for (int ax = 0; ax < nd; ++ax) {
        const auto along = [&](const auto& red) {
          const auto r = red(x, ufunc::axis(ax));
          static_assert(std::is_same_v<typename std::decay_t<decltype(r)>::value_type, C>);
          check_reduction<C>(k, r.to_host(), h, vd, vs, ax);
        };
        if (k == r_sum) along(ufunc::sum);
        else if (k == r_prod) along(ufunc::prod);
        else along(ufunc::mean);
      }
    }
  }
  // Empty: a sum of nothing is 0, a product 1 (the identities).
  const auto e = ufunc::zeros<C, Tg>({0, 3});
  CHECK(ufunc::sum(e, ufunc::axis(0)).to_host() == std::vector<C>(3, C(0, 0)));
  CHECK(ufunc::prod(e, ufunc::axis(0)).to_host() == std::vector<C>(3, C(1, 0)));
  CHECK(ufunc::sum(e) == C(0, 0));
}


// ---- matmul ----------------------------------------------------------------------

/// numpy.matmul of logical row-major host operands (dims da, db), written from
/// NumPy's rules: 1-D operands promoted (row first, column second, the added dim
/// dropped), batch dims broadcast. Returns the result and, per element, the
/// bound's scale: sum over the k products of (|Re a|+|Im a|)(|Re b|+|Im b|).
template <class C>
void matmul_reference(const std::vector<C>& a, std::vector<index_t> da, const std::vector<C>& b,
                      std::vector<index_t> db, std::vector<ref_c>& c, std::vector<R>& scale,
                      std::vector<index_t>& dc) {
  const bool av = da.size() == 1, bv = db.size() == 1;
  if (av) da.insert(da.begin(), 1);
  if (bv) db.push_back(1);
  const index_t m = da[da.size() - 2], k = da.back(), n = db.back();
  REQUIRE(db[db.size() - 2] == k);
  std::vector<index_t> ba(da.begin(), da.end() - 2), bb(db.begin(), db.end() - 2);
  const std::size_t nb = std::max(ba.size(), bb.size());
  ba.insert(ba.begin(), nb - ba.size(), 1);
  bb.insert(bb.begin(), nb - bb.size(), 1);
  std::vector<index_t> bc(nb);
  for (std::size_t d = 0; d < nb; ++d) bc[d] = std::max(ba[d], bb[d]);
  const index_t batches = test::count_of(bc);
  c.assign(static_cast<std::size_t>(batches * m * n), ref_c(0, 0));
  scale.assign(c.size(), R(0));
  for (index_t t = 0; t < batches; ++t) {
    index_t rem = t, oa = 0, ob = 0, sa = 1, sb = 1;
    for (std::size_t d = nb; d-- > 0;) {
      const index_t i = rem % bc[d];
      rem /= bc[d];
      oa += (ba[d] == 1 ? 0 : i) * sa;
      ob += (bb[d] == 1 ? 0 : i) * sb;
      sa *= ba[d];
      sb *= bb[d];
    }
    for (index_t i = 0; i < m; ++i)
      for (index_t j = 0; j < n; ++j) {
        ref_c acc(0, 0);
        R sc = 0;
        for (index_t p = 0; p < k; ++p) {
          const C x = a[static_cast<std::size_t>((oa * m + i) * k + p)], y = b[static_cast<std::size_t>((ob * k + p) * n + j)];
          acc += to_ref(x) * to_ref(y);
          sc += (std::fabs(R(x.real())) + std::fabs(R(x.imag()))) * (std::fabs(R(y.real())) + std::fabs(R(y.imag())));
        }
        c[static_cast<std::size_t>((t * m + i) * n + j)] = acc;
        scale[static_cast<std::size_t>((t * m + i) * n + j)] = sc;
      }
  }
  dc = bc;
  if (!av) dc.push_back(m);
  if (!bv) dc.push_back(n);
}

/// Each part of each element within (2k + 2) eps of its scale: a part is a sum
/// of 2k real products in the real type.
template <class C>
void check_matmul(const std::vector<C>& got, const std::vector<ref_c>& want, const std::vector<R>& scale, index_t k,
                  const char* what) {
  INFO(what);
  REQUIRE(got.size() == want.size());
  const R e = R(2 * k + 2) * eps_of<C>();
  std::size_t bad = 0;
  for (std::size_t i = 0; i < got.size(); ++i) {
    const ref_c g = to_ref(got[i]);
    if (!(std::fabs(g.real() - want[i].real()) <= e * scale[i]) || !(std::fabs(g.imag() - want[i].imag()) <= e * scale[i])) {
      if (bad++ < 3) INFO("element " << i);
    }
  }
  CHECK(bad == 0);
}

template <class Tg, class C>
void matmul_cases(std::uint64_t seed) {
  using V = std::vector<index_t>;
  std::uint64_t s = seed;
  auto one = [&](const V& da, const V& db, const char* what) {
    const auto a = random_complex<C>(static_cast<std::size_t>(test::count_of(da)), ++s, false);
    const auto b = random_complex<C>(static_cast<std::size_t>(test::count_of(db)), ++s, false);
    std::vector<ref_c> want;
    std::vector<R> scale;
    V dc;
    matmul_reference(a, da, b, db, want, scale, dc);
    const auto c = ufunc::matmul(test::make<Tg>(a, da), test::make<Tg>(b, db));
    CHECK(test::dims_of(c.shape()) == dc);
    check_matmul(c.to_host(), want, scale, da.back(), what);
  };
  one({37, 53}, {53, 29}, "2-D");
  one({53}, {53, 29}, "1-D @ 2-D");
  one({37, 53}, {53}, "2-D @ 1-D");
  one({53}, {53}, "1-D @ 1-D");
  one({2, 1, 5, 7}, {3, 7, 4}, "broadcast batches");
  one({3, 0}, {0, 4}, "k = 0");
  one({6, 2051}, {2051, 5}, "long k");

  // A transposed view as A, and the result into every other column of a larger array.
  const auto at = random_complex<C>(53 * 37, ++s, false);  // storage of A^T: (53, 37)
  const auto b = random_complex<C>(53 * 29, ++s, false);
  std::vector<C> a(at.size());
  for (index_t i = 0; i < 37; ++i)
    for (index_t p = 0; p < 53; ++p) a[static_cast<std::size_t>(i * 53 + p)] = at[static_cast<std::size_t>(p * 37 + i)];
  std::vector<ref_c> want;
  std::vector<R> scale;
  V dc;
  matmul_reference(a, {37, 53}, b, {53, 29}, want, scale, dc);
  const auto dat = test::make<Tg>(at, {53, 37});
  auto big = ufunc::zeros<C, Tg>({37, 58});
  auto cv = big.view().sliced(1, 0, 58, 2);
  ufunc::matmul(dat.view().transposed(), test::make<Tg>(b, {53, 29}), ufunc::out(cv));
  const auto h = big.to_host();
  std::vector<C> got, gaps;
  for (index_t i = 0; i < 37; ++i)
    for (index_t j = 0; j < 58; ++j) (j % 2 == 0 ? got : gaps).push_back(h[static_cast<std::size_t>(i * 58 + j)]);
  check_matmul(got, want, scale, 53, "transposed A, strided out");
  CHECK(gaps == std::vector<C>(gaps.size(), C(0, 0)));  // nothing written between the out's columns
}
}  // namespace

TEST_CASE("complex: elementwise user functions (conj, abs, arithmetic, a real scalar) on every target") {
  const auto seed = test::fresh_seed();
  INFO("seed " << seed);
  test::for_each_target([&](auto tg) {
    elementwise_cases<decltype(tg), cuda::std::complex<float>>(seed);
    elementwise_cases<decltype(tg), cuda::std::complex<double>>(seed);
  });
}

TEST_CASE("complex: sum, prod and mean, whole and along each axis, keep the complex type (NumPy's)") {
  const auto seed = test::fresh_seed();
  INFO("seed " << seed);
  test::for_each_target([&](auto tg) {
    reduction_cases<decltype(tg), cuda::std::complex<float>>(seed);
    reduction_cases<decltype(tg), cuda::std::complex<double>>(seed);
  });
}

TEST_CASE("complex: matmul (numpy.matmul rules, views, out) against a long double loop") {
  const auto seed = test::fresh_seed();
  INFO("seed " << seed);
  test::for_each_target([&](auto tg) {
    matmul_cases<decltype(tg), cuda::std::complex<float>>(seed);
    matmul_cases<decltype(tg), cuda::std::complex<double>>(seed);
  });
}
