// ufunc::searchsorted (issue 42) against a linear count over the sorted array:
// left = how many elements sort before the value, right = how many do not sort
// after it, NaNs after every number as NumPy sorts them; floats with duplicates,
// NaNs and infinities, mixed element types, strided and 2-D operands, empty ones.
#include "test_support.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <vector>

namespace search_test {

template <class X, class Y>
bool sorts_before(X x, Y y) {  // NumPy's order: NaN last
  if (std::isnan(static_cast<double>(y))) return !std::isnan(static_cast<double>(x));
  return x < y;
}

template <class T, class V>
std::vector<ufunc::index_t> reference(const std::vector<T>& a, const std::vector<V>& v, bool right) {
  std::vector<ufunc::index_t> r;
  for (const V x : v) {
    ufunc::index_t c = 0;
    for (const T e : a) c += right ? !sorts_before(x, e) : sorts_before(e, x);
    r.push_back(c);
  }
  return r;
}

template <class Tg>
void float_case(std::mt19937_64& g) {
  const float nan = std::numeric_limits<float>::quiet_NaN(), inf = std::numeric_limits<float>::infinity();
  std::vector<float> a(1000);
  std::uniform_int_distribution<int> q(-50, 50);
  for (auto& x : a) x = 0.5f * float(q(g));  // many duplicates
  a[3] = -inf;
  a[4] = inf;
  std::sort(a.begin(), a.end());
  a.push_back(nan);
  a.push_back(nan);
  std::vector<float> v(777);
  for (auto& x : v) x = 0.25f * float(q(g));
  v[0] = nan, v[1] = inf, v[2] = -inf, v[3] = -1000.f, v[4] = 1000.f;
  const auto A = ufunc::asarray<Tg>(a, ufunc::shape{static_cast<ufunc::index_t>(a.size())});
  const auto Vv = ufunc::asarray<Tg>(v, ufunc::shape{7, 111});
  for (bool right : {false, true}) {
    CAPTURE(right);
    const auto r = ufunc::searchsorted(A, Vv, right ? ufunc::side::right : ufunc::side::left);
    CHECK(r.shape() == ufunc::shape({7, 111}));
    CHECK(r.to_host() == reference(a, v, right));
  }
  // A strided a (every third element: still sorted) and a transposed v.
  std::vector<float> a3, vt;
  for (std::size_t i = 0; i < a.size(); i += 3) a3.push_back(a[i]);
  for (int j = 0; j < 111; ++j)
    for (int i = 0; i < 7; ++i) vt.push_back(v[static_cast<std::size_t>(i * 111 + j)]);
  const auto a3v = A.view().sliced(0, 0, static_cast<ufunc::index_t>(a.size()), 3);
  const auto r3 = ufunc::searchsorted(a3v, Vv.view().transposed(), ufunc::side::right);
  CHECK(r3.shape() == ufunc::shape({111, 7}));
  CHECK(r3.to_host() == reference(a3, vt, true));
}

}  // namespace search_test

using namespace search_test;

TEST_CASE("searchsorted: left and right against a count, NaNs last, strided and 2-D operands") {
  std::mt19937_64 g(test::fresh_seed());
  float_case<ufunc::target::host>(g);
#if defined(UFUNC_BACKEND_CUDA)
  float_case<ufunc::target::device>(g);
#endif
}

TEST_CASE("searchsorted: integers of mixed types, empty operands, and a 2-D sorted array refused") {
  using host = ufunc::target::host;
  std::mt19937_64 g(test::fresh_seed());
  std::uniform_int_distribution<std::int64_t> d(-1000000, 1000000);
  std::vector<std::int64_t> a(4096);
  for (auto& x : a) x = d(g) / 97;
  std::sort(a.begin(), a.end());
  std::vector<int> v(300);
  for (auto& x : v) x = static_cast<int>(d(g) / 90);
  v[0] = INT32_MIN, v[1] = INT32_MAX;
  const auto A = ufunc::asarray<host>(a, ufunc::shape{4096});
  const auto V = ufunc::asarray<host>(v, ufunc::shape{300});
  CHECK(ufunc::searchsorted(A, V).to_host() == reference(a, v, false));
  CHECK(ufunc::searchsorted(A, V, ufunc::side::right).to_host() == reference(a, v, true));
  const auto none = ufunc::zeros<std::int64_t, host>(ufunc::shape{0});
  CHECK(ufunc::searchsorted(none, V).to_host() == std::vector<ufunc::index_t>(300, 0));
  CHECK(ufunc::searchsorted(A, ufunc::zeros<int, host>(ufunc::shape{0, 4})).shape() == ufunc::shape({0, 4}));
  CHECK_THROWS_AS((void)ufunc::searchsorted(ufunc::zeros<float, host>(ufunc::shape{2, 2}), V), ufunc::shape_error);
}
