// Shared by the sort tests (test_sort*.cpp, split so that their CUB sorts
// compile in parallel): host references for ufunc::sort, argsort, topk and
// unique: std::stable_sort of each row (read through the view's own strides)
// with NumPy's order (NaN last, -0.0 == +0.0), a std::partial_sort with an
// index tie-break for topk, std::unique of the sorted copy for unique; random
// keys with many ties, NaNs, infinities and signed zeros; random views.
#pragma once

#include "test_support.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <memory>
#include <random>
#include <vector>

namespace sort_test {

using ufunc::index_t;

template <class T>
double num(const T& v) {
  if constexpr (ufunc::detail::is_half_v<T>) return static_cast<double>(static_cast<float>(v));
  else return static_cast<double>(v);
}
template <class T>
bool nan_of(const T& v) {
  if constexpr (ufunc::detail::is_float_kind_v<T>) return std::isnan(num(v));
  else return false;
}
/// NumPy's ascending order.
template <class T>
bool ref_less(const T& a, const T& b) {
  if constexpr (ufunc::detail::is_float_kind_v<T>) {
    const double x = num(a), y = num(b);
    if (std::isnan(y)) return !std::isnan(x);
    return x < y;
  } else {
    return a < b;
  }
}
/// Equal keys (np.unique's equal_nan).
template <class T>
bool ref_eq(const T& a, const T& b) {
  return !ref_less(a, b) && !ref_less(b, a);
}
/// The same value, a zero's sign included (NaNs all alike).
template <class T>
bool same(const T& a, const T& b) {
  if constexpr (ufunc::detail::is_float_kind_v<T>) {
    if (nan_of(a) || nan_of(b)) return nan_of(a) && nan_of(b);
    return num(a) == num(b) && std::signbit(num(a)) == std::signbit(num(b));
  } else {
    return a == b;
  }
}

/// A random element with many ties: a handful of small values, and for floats
/// NaN, -NaN, +-inf and +-0.
template <class T>
T draw(std::mt19937_64& g) {
  if constexpr (std::is_same_v<T, bool>) {
    return (g() & 1) != 0;
  } else if constexpr (std::is_integral_v<T>) {
    const auto k = g() % 20;
    if (k == 0) return std::numeric_limits<T>::max();
    if (k == 1) return std::numeric_limits<T>::min();
    return static_cast<T>(std::is_signed_v<T> ? static_cast<long long>(g() % 13) - 6 : static_cast<long long>(g() % 13));
  } else {
    const float nan = std::numeric_limits<float>::quiet_NaN(), inf = std::numeric_limits<float>::infinity();
    float f;
    switch (g() % 16) {
      case 0: f = nan; break;
      case 1: f = -nan; break;
      case 2: f = inf; break;
      case 3: f = -inf; break;
      case 4: f = -0.0f; break;
      case 5: f = 0.0f; break;
      default: f = 0.5f * static_cast<float>(static_cast<int>(g() % 17) - 8);
    }
    if constexpr (std::is_same_v<T, double>)
      if (g() % 4 == 0) return std::ldexp(static_cast<double>(g() % 100000) - 50000.0, -7);
    return static_cast<T>(f);
  }
}

/// Host data as a new array of target Tg (bool through a plain buffer: std::vector<bool> has none).
template <class Tg, class T>
ufunc::array<T, Tg> upload(const std::vector<T>& h, const std::vector<index_t>& dims) {
  std::unique_ptr<T[]> buf(new T[h.size() + 1]);
  for (std::size_t i = 0; i < h.size(); ++i) buf[i] = h[i];
  return ufunc::asarray<Tg>(buf.get(), test::shape_of(dims));
}

/// A view of the base array and its elements in row-major order, read through
/// the view's strides from the base's host copy.
template <class T, class Tg>
struct view_case {
  ufunc::array_view<const T, Tg> v;
  std::vector<T> elems;
  std::string what;
};
template <class T, class Tg>
view_case<T, Tg> random_view(const ufunc::array<T, Tg>& base, const std::vector<T>& host, std::mt19937_64& g) {
  ufunc::array_view<const T, Tg> v = base.view();
  std::string what = "contiguous";
  const int nd = v.ndim();
  switch (g() % 4) {
    case 1:
      v = v.transposed();
      what = "transposed";
      break;
    case 2: {
      const int a = static_cast<int>(g() % static_cast<unsigned>(nd));
      v = v.sliced(a, 1, v.shape()[a], 2);
      what = "every second along axis " + std::to_string(a);
      break;
    }
    case 3: {
      const int a = static_cast<int>(g() % static_cast<unsigned>(nd));
      v = v.sliced(a, v.shape()[a] - 1, -v.shape()[a] - 1, -1);
      if (nd == 3) v = v.permuted({1, 2, 0});
      what = "reversed along axis " + std::to_string(a) + (nd == 3 ? ", permuted (1,2,0)" : "");
      break;
    }
    default: break;
  }
  const auto dims = test::dims_of(v.shape());
  const index_t n = test::count_of(dims), base_off = v.data() - base.data();
  std::vector<T> e;
  for (index_t i = 0; i < n; ++i) {
    const auto idx = test::unravel(i, dims);
    index_t off = base_off;
    for (int d = 0; d < nd; ++d) off += idx[static_cast<std::size_t>(d)] * v.stride(d);
    e.push_back(host[static_cast<std::size_t>(off)]);
  }
  return {v, e, what};
}

/// For each row along `axis` of an array of `dims` (row-major elements e), the
/// flat positions of the row's elements in order.
inline std::vector<std::vector<index_t>> rows_of(const std::vector<index_t>& dims, int axis) {
  std::vector<std::vector<index_t>> rows;
  const index_t n = test::count_of(dims);
  const auto st = test::row_major(dims);
  for (index_t i = 0; i < n; ++i) {
    const auto idx = test::unravel(i, dims);
    if (idx[static_cast<std::size_t>(axis)] != 0) continue;
    std::vector<index_t> r;
    for (index_t j = 0; j < dims[static_cast<std::size_t>(axis)]; ++j) r.push_back(i + j * st[static_cast<std::size_t>(axis)]);
    rows.push_back(r);
  }
  return rows;
}

template <class T, class U>
std::size_t mismatches(const std::vector<T>& got, const std::vector<U>& want, std::size_t& first) {
  std::size_t bad = 0;
  for (std::size_t i = 0; i < want.size(); ++i)
    if (!same(static_cast<T>(got[i]), static_cast<T>(want[i]))) {
      if (!bad) first = i;
      ++bad;
    }
  return bad;
}

template <class Tg, class T>
void sort_case(std::mt19937_64& g) {
  static const index_t extents[] = {0, 1, 1, 2, 3, 4, 5, 7, 16, 33};
  const int nd = 1 + static_cast<int>(g() % 3);
  std::vector<index_t> dims;
  for (int d = 0; d < nd; ++d) dims.push_back(extents[g() % 10]);
  if (nd == 1 && g() % 3 == 0) dims[0] = 100 + static_cast<index_t>(g() % 400);  // longer rows
  if (g() % 12 == 0) dims[g() % dims.size()] = 0;
  std::vector<T> host;
  for (index_t i = 0; i < test::count_of(dims); ++i) host.push_back(draw<T>(g));
  const auto base = upload<Tg>(host, dims);
  const auto vc = random_view(base, host, g);
  const auto vdims = test::dims_of(vc.v.shape());
  const int axis = static_cast<int>(g() % static_cast<unsigned>(nd));
  const int given = g() % 2 ? axis : axis - nd;  // the same axis, counted from the end half the time
  CAPTURE(test::type_name<T>());
  CAPTURE(test::dims_str(vdims));
  CAPTURE(vc.what);
  CAPTURE(given);
  // References: each row stably sorted (positions), ascending and descending.
  std::vector<T> want_v(vc.elems.size());
  std::vector<index_t> want_i(vc.elems.size());
  const auto rows = rows_of(vdims, axis);
  for (const auto& r : rows) {
    std::vector<index_t> p(r.size());
    for (std::size_t j = 0; j < p.size(); ++j) p[j] = static_cast<index_t>(j);
    std::stable_sort(p.begin(), p.end(), [&](index_t a, index_t b) {
      return ref_less(vc.elems[static_cast<std::size_t>(r[static_cast<std::size_t>(a)])],
                      vc.elems[static_cast<std::size_t>(r[static_cast<std::size_t>(b)])]);
    });
    for (std::size_t j = 0; j < p.size(); ++j) {
      want_i[static_cast<std::size_t>(r[j])] = p[j];
      want_v[static_cast<std::size_t>(r[j])] = vc.elems[static_cast<std::size_t>(r[static_cast<std::size_t>(p[j])])];
    }
  }
  const auto s = given % 2 ? ufunc::sort(vc.v, ufunc::axis(given)) : ufunc::sort(vc.v, given);
  CHECK(s.shape() == vc.v.shape());
  const auto sh = s.to_host();
  std::size_t first = 0;
  const auto bad_v = mismatches(sh, want_v, first);
  INFO("sort: first mismatch at " << first << ": got " << (bad_v ? num(static_cast<T>(sh[first])) : 0.0) << ", want "
                                  << (bad_v ? num(want_v[first]) : 0.0));
  CHECK(bad_v == 0);
  const auto a = ufunc::argsort(vc.v, given);
  CHECK(a.shape() == vc.v.shape());
  test::expect_equal(a.to_host(), want_i);

  // topk along the same axis: a partial sort with an index tie-break.
  const index_t L = vdims[static_cast<std::size_t>(axis)];
  const index_t k = L == 0 ? 0 : static_cast<index_t>(g() % static_cast<std::uint64_t>(L + 1));
  const bool largest = g() % 3 != 0;
  CAPTURE(k);
  CAPTURE(largest);
  auto kd = vdims;
  kd[static_cast<std::size_t>(axis)] = k;
  std::vector<T> tv(static_cast<std::size_t>(test::count_of(kd)));
  std::vector<index_t> ti(tv.size());
  const auto krows = rows_of(kd, axis);
  REQUIRE(krows.size() == (k > 0 ? rows.size() : 0));
  for (std::size_t q = 0; q < krows.size(); ++q) {
    const auto& r = rows[q];
    std::vector<index_t> p(r.size());
    for (std::size_t j = 0; j < p.size(); ++j) p[j] = static_cast<index_t>(j);
    auto key = [&](index_t j) { return vc.elems[static_cast<std::size_t>(r[static_cast<std::size_t>(j)])]; };
    std::partial_sort(p.begin(), p.begin() + k, p.end(), [&](index_t x, index_t y) {
      const bool before = largest ? ref_less(key(y), key(x)) : ref_less(key(x), key(y));
      return before || (ref_eq(key(x), key(y)) && x < y);
    });
    for (index_t j = 0; j < k; ++j) {
      tv[static_cast<std::size_t>(krows[q][static_cast<std::size_t>(j)])] = key(p[static_cast<std::size_t>(j)]);
      ti[static_cast<std::size_t>(krows[q][static_cast<std::size_t>(j)])] = p[static_cast<std::size_t>(j)];
    }
  }
  const auto t = ufunc::topk(vc.v, k, given, largest);
  CHECK(t.values.shape() == test::shape_of(kd));
  CHECK(t.indices.shape() == test::shape_of(kd));
  const auto tvh = t.values.to_host();
  std::vector<T> tvals(tvh.begin(), tvh.end());
  // The indices must be the reference's exactly, and each value the element at
  // its index (a zero's sign included; NaNs canonical): the GPU's full-sort
  // path gets its values back from order bits, which keep no zero's sign.
  test::expect_equal(t.indices.to_host(), ti);
  std::size_t bad_t = 0;
  for (std::size_t i = 0; i < tv.size(); ++i) bad_t += !same(tvals[i], tv[i]);
  CHECK(bad_t == 0);
}

template <class Tg, class T>
void unique_case(std::mt19937_64& g) {
  const int nd = static_cast<int>(g() % 4);  // 0-d too
  std::vector<index_t> dims;
  for (int d = 0; d < nd; ++d) dims.push_back(static_cast<index_t>(g() % 9));
  std::vector<T> host;
  for (index_t i = 0; i < test::count_of(dims); ++i) host.push_back(draw<T>(g));
  const auto base = upload<Tg>(host, dims);
  const auto vc = nd > 0 ? random_view(base, host, g) : view_case<T, Tg>{base.view(), host, "0-d"};
  CAPTURE(test::type_name<T>());
  CAPTURE(test::dims_str(test::dims_of(vc.v.shape())));
  CAPTURE(vc.what);
  const auto& x = vc.elems;
  std::vector<T> sorted(x.begin(), x.end());
  std::stable_sort(sorted.begin(), sorted.end(), ref_less<T>);
  std::vector<T> want(sorted.begin(), sorted.end());
  want.erase(std::unique(want.begin(), want.end(), ref_eq<T>), want.end());
  std::vector<index_t> want_c;
  for (const auto& w : want)
    want_c.push_back(std::count_if(x.begin(), x.end(), [&](const T& e) { return ref_eq<T>(e, w); }));

  auto check_values = [&](const std::vector<T>& got) {
    REQUIRE(got.size() == want.size());
    std::size_t first = 0;
    CHECK(mismatches(got, want, first) == 0);
  };
  const auto u = ufunc::unique(vc.v);
  CHECK(u.ndim() == 1);
  const auto uh = u.to_host();
  check_values(std::vector<T>(uh.begin(), uh.end()));
  const auto uc = ufunc::unique_counts(vc.v);
  const auto uch = uc.values.to_host();
  check_values(std::vector<T>(uch.begin(), uch.end()));
  test::expect_equal(uc.counts.to_host(), want_c);
  const auto ui = ufunc::unique_inverse(vc.v);
  CHECK(ui.inverse_indices.shape() == vc.v.shape());
  const auto uih = ui.values.to_host();
  const std::vector<T> vals(uih.begin(), uih.end());
  check_values(vals);
  const auto inv = ui.inverse_indices.to_host();
  std::size_t bad = 0;
  for (std::size_t i = 0; i < x.size(); ++i)  // values[inverse] == x
    bad += inv[i] < 0 || inv[i] >= static_cast<index_t>(vals.size()) ||
           !ref_eq<T>(vals[static_cast<std::size_t>(inv[i])], x[i]);
  CHECK(bad == 0);
  const auto ua = ufunc::unique_all(vc.v);
  const auto uah = ua.values.to_host();
  check_values(std::vector<T>(uah.begin(), uah.end()));
  test::expect_equal(ua.counts.to_host(), want_c);
  test::expect_equal(ua.inverse_indices.to_host(), inv);
  const auto idx = ua.indices.to_host();
  REQUIRE(idx.size() == want.size());
  for (std::size_t j = 0; j < want.size(); ++j) {  // the first occurrence of each value
    const auto it = std::find_if(x.begin(), x.end(), [&](const T& e) { return ref_eq<T>(e, want[j]); });
    CHECK(idx[j] == it - x.begin());
  }
}

/// sort_case and unique_case for each of Ts. The test files together cover every
/// key the engines treat differently: bool, signed and unsigned integers of each
/// width CUB's radix sort sees, the four floats (NaN, the 16-bit floats through
/// float). Not uint8 and uint64 (each its own CUB keys sorts, several s of
/// nvcc): no code of the library tells them from uint16/uint32, and the GPU's
/// pairs sorts run on unsigned order bits of each width already (bool's and
/// int8's on 1-byte ones, double's and int64's on 8-byte ones); the oracle's
/// sort category runs uint8.
template <class Tg, class... Ts>
void types_cases(std::mt19937_64& g, int reps) {
  test::for_each_type<Ts...>([&](auto t) {
    using T = decltype(t);
    for (int i = 0; i < reps; ++i) sort_case<Tg, T>(g);
    for (int i = 0; i < reps / 2; ++i) unique_case<Tg, T>(g);
  });
}

/// One long row: the host backend's chunked merge (several chunks when there
/// are threads), argsort against std::stable_sort.
template <class Tg>
void long_row(std::mt19937_64& g) {
  const index_t n = 300001;
  std::vector<float> h(static_cast<std::size_t>(n));
  for (auto& v : h) v = draw<float>(g);
  const auto x = upload<Tg>(h, {n});
  std::vector<index_t> p(h.size());
  for (std::size_t j = 0; j < p.size(); ++j) p[j] = static_cast<index_t>(j);
  std::stable_sort(p.begin(), p.end(), [&](index_t a, index_t b) {
    return ref_less(h[static_cast<std::size_t>(a)], h[static_cast<std::size_t>(b)]);
  });
  test::expect_equal(ufunc::argsort(x).to_host(), p);
  std::vector<float> want;
  for (auto j : p) want.push_back(h[static_cast<std::size_t>(j)]);
  std::size_t first = 0;
  CHECK(mismatches(ufunc::sort(x).to_host(), want, first) == 0);
  const auto t = ufunc::topk(x, 16);
  std::vector<index_t> q(p.size());
  for (std::size_t j = 0; j < q.size(); ++j) q[j] = static_cast<index_t>(j);
  std::partial_sort(q.begin(), q.begin() + 16, q.end(), [&](index_t a, index_t b) {  // largest first, ties: lower index
    const float x1 = h[static_cast<std::size_t>(a)], x2 = h[static_cast<std::size_t>(b)];
    return ref_less(x2, x1) || (ref_eq(x1, x2) && a < b);
  });
  q.resize(16);
  test::expect_equal(t.indices.to_host(), q);
}

/// Many rows of one length (the CUDA backend's segmented sorts: small, medium
/// and large segments take different CUB paths), along axis 1 of (rows, L) and
/// axis 0 of its transpose: sort, argsort and topk against std::stable_sort.
template <class Tg, class T>
void rows_case(std::mt19937_64& g, index_t rows, index_t L) {
  CAPTURE(test::type_name<T>());
  CAPTURE(rows);
  CAPTURE(L);
  std::vector<T> h(static_cast<std::size_t>(rows * L));
  for (auto& v : h) v = draw<T>(g);
  const auto x = upload<Tg>(h, {rows, L});
  std::vector<index_t> want_i(h.size()), want_t, want_tl;
  std::vector<T> want_v(h.size());
  const index_t k = std::min<index_t>(L, 5);
  for (index_t r = 0; r < rows; ++r) {
    std::vector<index_t> p(static_cast<std::size_t>(L));
    for (index_t j = 0; j < L; ++j) p[static_cast<std::size_t>(j)] = j;
    auto key = [&](index_t j) { return h[static_cast<std::size_t>(r * L + j)]; };
    std::stable_sort(p.begin(), p.end(), [&](index_t a, index_t b) { return ref_less(key(a), key(b)); });
    for (index_t j = 0; j < L; ++j) {
      want_i[static_cast<std::size_t>(r * L + j)] = p[static_cast<std::size_t>(j)];
      want_v[static_cast<std::size_t>(r * L + j)] = key(p[static_cast<std::size_t>(j)]);
    }
    for (index_t j = 0; j < k; ++j) want_tl.push_back(p[static_cast<std::size_t>(j)]);
    std::stable_sort(p.begin(), p.end(), [&](index_t a, index_t b) { return ref_less(key(b), key(a)); });
    std::sort(p.begin(), p.end(), [&](index_t a, index_t b) {  // descending, ties: the lower index first
      return ref_less(key(b), key(a)) || (ref_eq(key(a), key(b)) && a < b);
    });
    for (index_t j = 0; j < k; ++j) want_t.push_back(p[static_cast<std::size_t>(j)]);
  }
  std::size_t first = 0;
  CHECK(mismatches(ufunc::sort(x).to_host(), want_v, first) == 0);
  test::expect_equal(ufunc::argsort(x).to_host(), want_i);
  test::expect_equal(ufunc::topk(x, k).indices.to_host(), want_t);
  test::expect_equal(ufunc::topk(x, k, 1, false).indices.to_host(), want_tl);
  // The transpose along axis 0: the same rows, written back column-wise.
  const auto xt = x.view().transposed();
  const auto st = ufunc::sort(xt, 0).to_host();
  const auto at = ufunc::argsort(xt, ufunc::axis(-2)).to_host();
  std::size_t bad_v = 0, bad_i = 0;
  for (index_t r = 0; r < rows; ++r)
    for (index_t j = 0; j < L; ++j) {
      const auto o = static_cast<std::size_t>(j * rows + r), w = static_cast<std::size_t>(r * L + j);
      bad_v += !same(static_cast<T>(st[o]), want_v[w]);
      bad_i += at[o] != want_i[w];
    }
  CHECK(bad_v == 0);
  CHECK(bad_i == 0);
  // topk of the transpose along axis 0 (a strided input: the key-prep copy, then
  // the same selection or sort), largest and smallest, (k, rows) results.
  const auto tt = ufunc::topk(xt, k, 0).indices.to_host();
  const auto ttl = ufunc::topk(xt, k, 0, false).indices.to_host();
  std::size_t bad_t = 0;
  for (index_t r = 0; r < rows; ++r)
    for (index_t j = 0; j < k; ++j) {
      const auto o = static_cast<std::size_t>(j * rows + r), w = static_cast<std::size_t>(r * k + j);
      bad_t += (tt[o] != want_t[w]) + (ttl[o] != want_tl[w]);
    }
  CHECK(bad_t == 0);
}

}  // namespace sort_test
