// ufunc::random's lazy leaves (issue 41): lazy_uniform, lazy_normal and
// lazy_integers against the arrays the same arguments make (themselves tested
// against cuRAND in test_random.cpp), bit for bit on the same target, on fresh
// seeds and odd shapes: evaluated alone (flat and N-d, into new arrays and
// out(...), strided outs, converting outs), in eager calls and f.lazy, mixed
// with array leaves, broadcast along size-1 dims (the counter is the leaf's own
// row-major index), in the CUDA backend's tile and row paths; every argument
// error raised when the leaf is built. Reductions, memory and streamed chunks:
// test_random_lazy_reduce.cpp.
#include "random_lazy_support.hpp"

#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

namespace lazy_random_test {

const std::vector<shape>& value_shapes() {
  static const std::vector<shape> s{shape{0},        shape{1},       shape{3},     shape{4},
                                    shape{5},        shape{1023},    shape{100003}, shape{},
                                    shape{3, 7, 5},  shape{1001, 3}, shape{5, 1023}, shape{2, 0, 3},
                                    shape{37, 13}};
  return s;
}

/// evaluate(leaf) == the array, bit for bit, for every shape, into a new array
/// and into out(...), contiguous and transposed; with Paths, the eager call
/// f(leaf), f.lazy(leaf) and a converting out too (each another kernel set:
/// the CUDA unit runs them for a few kinds and types, to stay under ~300 kernels).
template <kind K, class T, class Tg, bool Pin = true, bool Paths = true>
void check_values(std::uint64_t seed) {
  const int kind_no = static_cast<int>(K);
  const std::string type = test::type_name<T>();
  CAPTURE(seed);
  CAPTURE(kind_no);
  CAPTURE(type);
  int bad = 0;
  for (const shape& s : value_shapes()) {
    CAPTURE(s.str());
    const auto want = arr<K, T, Tg>(s, seed).to_host();
    const auto e = leaf<K, T, Tg, Pin>(s, seed);
    CHECK(e.shape() == s);
    const auto got = ufunc::evaluate(e);
    static_assert(std::is_same_v<typename decltype(got)::target_type, Tg>);
    bad += bits_differ(got.to_host(), want);
    if constexpr (Paths) {
      const auto f = ufunc::vectorize<Tg>(ident_fn{}, "ident");
      bad += bits_differ(f(e).to_host(), want);
      bad += bits_differ(ufunc::evaluate(f.lazy(e)).to_host(), want);
    }
    auto y = ufunc::empty<T, Tg>(s);
    ufunc::evaluate(e, ufunc::out(y));
    bad += bits_differ(y.to_host(), want);
  }
  CHECK(bad == 0);
  // A strided out (the N-d paths: the result walks a transposed view) and one
  // of another type (converted on the way out).
  for (const shape& s : {shape{37, 13}, shape{5, 1023}, shape{64, 70}}) {
    CAPTURE(s.str());
    const auto want = arr<K, T, Tg>(s, seed).to_host();
    auto t = ufunc::empty<T, Tg>(shape{s[1], s[0]});
    ufunc::evaluate(leaf<K, T, Tg, Pin>(s, seed), ufunc::out(t.view().transposed()));
    const auto th = t.to_host();
    int tb = 0;
    for (index_t i = 0; i < s[0]; ++i)
      for (index_t j = 0; j < s[1]; ++j)
        tb += std::memcmp(&th[static_cast<std::size_t>(j * s[0] + i)], &want[static_cast<std::size_t>(i * s[1] + j)],
                          sizeof(T)) != 0;
    CHECK(tb == 0);
    if constexpr (Paths) {
      auto d = ufunc::empty<double, Tg>(s);
      ufunc::evaluate(leaf<K, T, Tg, Pin>(s, seed), ufunc::out(d), ufunc::unsafe_cast);
      const auto dh = d.to_host();
      int db = 0;
      for (std::size_t i = 0; i < dh.size(); ++i) db += dh[i] != static_cast<double>(want[i]);
      CHECK(db == 0);
    }
  }
}

template <class Tg>
void check_all_values(std::mt19937_64& g) {
  constexpr bool all = std::is_same_v<Tg, host>;  // every path for every kind and type on the host
  check_values<kind::uniform, float, Tg, true, all>(g());
  check_values<kind::normal, float, Tg, true, true>(g());
  check_values<kind::uniform, double, Tg, true, all>(g());
  check_values<kind::normal, double, Tg, true, all>(g());
  check_values<kind::uniform, __half, Tg, true, true>(g());
  check_values<kind::normal, __half, Tg, true, all>(g());
  check_values<kind::uniform, __nv_bfloat16, Tg, true, all>(g());
  check_values<kind::normal, __nv_bfloat16, Tg, true, all>(g());
  check_values<kind::integers, std::int8_t, Tg, true, all>(g());
  check_values<kind::integers, std::int32_t, Tg, true, all>(g());
  check_values<kind::integers, std::int64_t, Tg, true, true>(g());
  check_values<kind::integers, std::uint64_t, Tg, true, all>(g());
}

/// Expressions over array leaves and random leaves: each equals the same
/// expression with the leaf's array in its place, bit for bit (the same functor
/// on the same paths), and the broadcast ones a host loop over the arrays.
template <class Tg>
void check_expressions(std::uint64_t seed) {
  CAPTURE(seed);
  using ufunc::lazy;
  const auto mad = ufunc::vectorize<Tg>(mad_fn{}, "mad");
  for (const shape& s : {shape{1}, shape{1023}, shape{100003}, shape{37, 13}, shape{3, 1027}}) {
    CAPTURE(s.str());
    const auto x = ufunc::random::uniform<float, Tg>(s, seed + 1);
    const auto z = ufunc::random::normal<float, Tg>(s, seed);
    const auto zl = ufunc::random::lazy_normal<float>(s, seed);
    CHECK(bits_differ(ufunc::evaluate(lazy(x) * zl + 1.0f).to_host(), ufunc::evaluate(lazy(x) * lazy(z) + 1.0f).to_host()) == 0);
    CHECK(bits_differ(mad(x, zl).to_host(), mad(x, z).to_host()) == 0);
    CHECK(bits_differ(ufunc::evaluate(mad.lazy(zl, x) - zl).to_host(), ufunc::evaluate(mad.lazy(z, x) - lazy(z)).to_host()) == 0);
  }
  // Broadcast: a leaf of shape (N, 1), (1, M), (M,), (A, 1, C) repeats its
  // draws along its size-1 (or missing) dims, whatever the other operands; row
  // lengths that are not multiples of 4 (Philox blocks straddle rows) and rows
  // long enough for the CUDA row kernel (>= 512).
  for (const auto& nm : std::vector<std::pair<index_t, index_t>>{{37, 13}, {3, 1027}, {130, 9}, {1, 5}}) {
    const index_t n = nm.first, m = nm.second;
    CAPTURE(n);
    CAPTURE(m);
    const auto x = ufunc::random::uniform<float, Tg>(shape{n, m}, seed + 2);
    const auto xh = x.to_host();
    const auto col = ufunc::random::normal<float, Tg>(shape{n, 1}, seed).to_host();
    const auto row = ufunc::random::uniform<float, Tg>(shape{m}, seed + 3).to_host();
    const auto row2 = ufunc::random::integers<std::int32_t, Tg>(shape{1, m}, seed + 4, -50, 50).to_host();
    const auto lc = ufunc::random::lazy_normal<float, Tg>(shape{n, 1}, seed);
    const auto lr = ufunc::random::lazy_uniform<float, Tg>(shape{m}, seed + 3);
    const auto li = ufunc::random::lazy_integers<std::int32_t, Tg>(shape{1, m}, seed + 4, -50, 50);
    const auto a = ufunc::evaluate(lazy(x) + lc).to_host();
    const auto b = ufunc::evaluate(lc * lr).to_host();           // two leaves, an outer product
    const auto c = ufunc::evaluate(li - lazy(x) * lc).to_host();  // int - float * float
    // c's reference: the same expression over the draws as broadcast array leaves
    // (nvcc may fuse x * lc into an FMA in the expression's functor, as it does for
    // the array version; a host loop rounds the product first), and, on the host,
    // the loop as well.
    const auto c_arrays = ufunc::evaluate(lazy(ufunc::random::integers<std::int32_t, Tg>(shape{1, m}, seed + 4, -50, 50)) -
                                          lazy(x) * lazy(ufunc::random::normal<float, Tg>(shape{n, 1}, seed)))
                              .to_host();
    int bad = 0;
    for (index_t i = 0; i < n; ++i)
      for (index_t j = 0; j < m; ++j) {
        const auto k = static_cast<std::size_t>(i * m + j);
        const auto ii = static_cast<std::size_t>(i), jj = static_cast<std::size_t>(j);
        bad += a[k] != xh[k] + col[ii];
        bad += b[k] != col[ii] * row[jj];
        bad += c[k] != c_arrays[k];
        if constexpr (std::is_same_v<Tg, ufunc::target::host>) bad += c[k] != row2[jj] - xh[k] * col[ii];
      }
    CHECK(bad == 0);
    // Into a transposed out: the N-d paths walk the leaves with other strides.
    auto t = ufunc::empty<float, Tg>(shape{m, n});
    ufunc::evaluate(lc * lr, ufunc::out(t.view().transposed()));
    const auto th = t.to_host();
    bad = 0;
    for (index_t i = 0; i < n; ++i)
      for (index_t j = 0; j < m; ++j) bad += th[static_cast<std::size_t>(j * n + i)] != b[static_cast<std::size_t>(i * m + j)];
    CHECK(bad == 0);
  }
  // Three dims: (5, 1, 9) against (5, 6, 9); (6, 1) against it as well.
  {
    const auto x = ufunc::random::uniform<double, Tg>(shape{5, 6, 9}, seed + 5);
    const auto xh = x.to_host();
    const auto p = ufunc::random::normal<double, Tg>(shape{5, 1, 9}, seed).to_host();
    const auto q = ufunc::random::uniform<double, Tg>(shape{6, 1}, seed + 6).to_host();
    const auto r = ufunc::evaluate(lazy(x) * ufunc::random::lazy_normal<double>(shape{5, 1, 9}, seed) +
                                   ufunc::random::lazy_uniform<double>(shape{6, 1}, seed + 6))
                       .to_host();
    // As above: the array-leaf expression on every target (x * p + q may be one
    // FMA on the GPU), the host loop on the host.
    const auto r_arrays = ufunc::evaluate(lazy(x) * lazy(ufunc::random::normal<double, Tg>(shape{5, 1, 9}, seed)) +
                                          lazy(ufunc::random::uniform<double, Tg>(shape{6, 1}, seed + 6)))
                              .to_host();
    int bad = 0;
    for (std::size_t i = 0; i < 5; ++i)
      for (std::size_t j = 0; j < 6; ++j)
        for (std::size_t k = 0; k < 9; ++k) {
          const std::size_t o = (i * 6 + j) * 9 + k;
          bad += r[o] != r_arrays[o];
          if constexpr (std::is_same_v<Tg, ufunc::target::host>) bad += r[o] != xh[o] * p[i * 9 + k] + q[j];
        }
    CHECK(bad == 0);
  }
  // The mixed-layout (tile) path of the CUDA backend: a transposed array
  // input stages through shared memory, the leaf beside it is read per element.
  {
    const auto a = ufunc::random::uniform<float, Tg>(shape{100, 70}, seed + 7);
    const auto z = ufunc::random::normal<float, Tg>(shape{70, 100}, seed);
    const auto zl = ufunc::random::lazy_normal<float>(shape{70, 100}, seed);
    CHECK(bits_differ(ufunc::evaluate(lazy(a.view().transposed()) + zl).to_host(),
                      ufunc::evaluate(lazy(a.view().transposed()) + lazy(z)).to_host()) == 0);
  }
}


}  // namespace lazy_random_test

using namespace lazy_random_test;

TEST_CASE("random lazy: a leaf's elements are the array's, bit for bit, on every target and path") {
  std::mt19937_64 g(test::fresh_seed());
  check_all_values<host>(g);
#if defined(UFUNC_BACKEND_CUDA)
  check_all_values<ufunc::target::device>(g);
#endif
  // Unpinned leaves run on the build's device alone, and join host arrays.
  check_values<kind::normal, float, ufunc::target::device, false>(g());
  check_values<kind::integers, std::int64_t, ufunc::target::device, false>(g());
  {
    const auto seed = g();
    const auto x = ufunc::random::uniform<float, host>(shape{1003}, seed + 1);
    const auto z = ufunc::random::normal<float, host>(shape{1003}, seed);
    const auto r = ufunc::evaluate(ufunc::lazy(x) - ufunc::random::lazy_normal<float>(shape{1003}, seed));
    static_assert(std::is_same_v<typename decltype(r)::target_type, host>);
    CHECK(bits_differ(r.to_host(), ufunc::evaluate(ufunc::lazy(x) - ufunc::lazy(z)).to_host()) == 0);
  }
}

TEST_CASE("random lazy: expressions mixing leaves and arrays; broadcast leaves repeat their draws") {
  const auto seed = test::fresh_seed();
  check_expressions<host>(seed);
#if defined(UFUNC_BACKEND_CUDA)
  check_expressions<ufunc::target::device>(seed + 100);
#endif
}

TEST_CASE("random lazy: argument and shape errors are raised when the leaf is built, before anything runs") {
  const auto seed = test::fresh_seed();
  CHECK_THROWS_AS((void)ufunc::random::lazy_normal<float>(shape{4}, seed, 0.f, -1.f), ufunc::value_error);
  auto pinned_negative = [&] { return ufunc::random::lazy_normal<double, host>(shape{4}, seed, 0.0, -0.5); };
  CHECK_THROWS_AS((void)pinned_negative(), ufunc::value_error);
  CHECK_THROWS_AS((void)ufunc::random::lazy_integers<int>(shape{4}, seed, 5, 5), ufunc::value_error);
  CHECK_THROWS_AS((void)ufunc::random::lazy_integers<std::int64_t>(shape{4}, seed, 6, -2), ufunc::value_error);
  CHECK_NOTHROW((void)ufunc::random::lazy_normal<float>(shape{4}, seed, 0.f, 0.f));
  // Shapes that do not broadcast: shape_error when the node is built.
  const auto x = ufunc::random::uniform<float, host>(shape{5}, seed);
  CHECK_THROWS_AS((void)(ufunc::lazy(x) + ufunc::random::lazy_uniform<float>(shape{4}, seed)), ufunc::shape_error);
  // An out of the wrong shape: shape_error, out untouched.
  auto y = ufunc::full<float, host>(shape{3, 4}, 7.f);
  const auto wrong = ufunc::random::lazy_uniform<float, host>(shape{4, 3}, seed);
  CHECK_THROWS_AS(ufunc::evaluate(wrong, ufunc::out(y)), ufunc::shape_error);
  CHECK_THROWS_AS(ufunc::sum(wrong, ufunc::axis(0), ufunc::out(y)), ufunc::shape_error);
  const auto yh = y.to_host();
  CHECK(std::all_of(yh.begin(), yh.end(), [](float v) { return v == 7.f; }));
  // A zero-size leaf: an empty array; reductions without an identity refuse it, as for arrays.
  const auto empty2 = ufunc::random::lazy_normal<float, host>(shape{3, 0}, seed);
  const auto empty1 = ufunc::random::lazy_normal<float, host>(shape{0}, seed);
  CHECK(ufunc::evaluate(empty2).size() == 0);
  CHECK(float(ufunc::sum(empty1)) == 0.f);
  CHECK_THROWS_AS((void)ufunc::max(empty1), ufunc::value_error);
}

