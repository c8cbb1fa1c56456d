// Shared helpers of the reduceat tests (test_reduceat.cpp: bool and the
// integers, the error cases, long sums; test_reduceat_float.cpp: the floating
// types, split off so that neither unit is the GPU suite's longest build): the
// reference loop over NumPy's rule on random views and indices, one case per
// (target, element type, op). See test_reduceat.cpp for what is checked.
#pragma once

#include "test_support.hpp"

#include <cmath>
#include <cstring>
#include <random>
#include <tuple>
#include <type_traits>
#include <vector>

namespace reduceat_test {

using ufunc::index_t;
using ufunc::shape;

enum op_kind { k_plus, k_multiplies, k_maximum, k_minimum, k_custom };

/// The result type NumPy's add/multiply.reduceat give (the library's rules for
/// the 16-bit floats: float), else the input's own type.
template <class T, op_kind K>
struct want_acc {
  using type = T;
};
template <class T>
struct sum_like {
  using type = std::conditional_t<
      ufunc::detail::is_half_v<T>, float,
      std::conditional_t<std::is_integral_v<T> && sizeof(T) < 8,
                         std::conditional_t<std::is_unsigned_v<T> && !std::is_same_v<T, bool>, std::uint64_t, std::int64_t>,
                         T>>;
};
template <class T>
struct want_acc<T, k_plus> : sum_like<T> {};
template <class T>
struct want_acc<T, k_multiplies> : sum_like<T> {};

template <class T>
double to_d(const T& v) {
  if constexpr (ufunc::detail::is_half_v<T>)
    return static_cast<double>(static_cast<float>(v));
  else
    return static_cast<double>(v);
}
template <class T>
T from_d(double v) {
  if constexpr (ufunc::detail::is_half_v<T>)
    return T(static_cast<float>(v));
  else
    return static_cast<T>(v);
}
template <class T>
constexpr bool floating() {
  return std::is_floating_point_v<T> || ufunc::detail::is_half_v<T>;
}

/// A random element for op K; every value is exact in T (the 16-bit floats
/// take multiples of 1/4 or 1/8).
template <class T, op_kind K>
T random_elem(std::mt19937_64& g) {
  std::uniform_int_distribution<int> small(-9, 9), unit(-1, 1), eighth(7, 9), quarter(-40, 40);
  if constexpr (std::is_same_v<T, bool>) return g() & 1;
  else if constexpr (K == k_multiplies) {
    if constexpr (ufunc::detail::is_half_v<T>) return from_d<T>(eighth(g) / 8.0 * (g() % 8 ? 1 : -1));
    else if constexpr (std::is_floating_point_v<T>) return static_cast<T>(std::uniform_real_distribution<double>(0.9, 1.1)(g));
    else if constexpr (std::is_unsigned_v<T>) return static_cast<T>(g() % 8 ? 1 : g() % 2 * 2);
    else return static_cast<T>(unit(g));
  } else {
    if constexpr (ufunc::detail::is_half_v<T>) return from_d<T>(quarter(g) / 4.0);
    else if constexpr (std::is_floating_point_v<T>) return static_cast<T>(std::uniform_real_distribution<double>(-10, 10)(g));
    else if constexpr (std::is_unsigned_v<T>) return static_cast<T>(small(g) + 9);
    else return static_cast<T>(small(g));
  }
}

/// A view as the reference reads it: element (i0, i1, ...) at
/// base[offset + sum i_d strides_d].
struct view_spec {
  std::vector<index_t> base_dims, dims, strides;
  index_t offset = 0;
};

/// kind 0: contiguous; 1: every other element of each dim; 2: transposed (the
/// dims of a row-major base in reverse order); 3: reversed along one dim.
inline view_spec make_view(std::mt19937_64& g, const std::vector<index_t>& dims, int kind) {
  view_spec v;
  v.dims = dims;
  const std::size_t nd = dims.size();
  if (kind == 1) {
    for (auto d : dims) v.base_dims.push_back(2 * d);
    const auto rm = test::row_major(v.base_dims);
    for (std::size_t d = 0; d < nd; ++d) v.strides.push_back(2 * rm[d]);
  } else if (kind == 2) {
    v.base_dims.assign(dims.rbegin(), dims.rend());
    const auto rm = test::row_major(v.base_dims);
    for (std::size_t d = 0; d < nd; ++d) v.strides.push_back(rm[nd - 1 - d]);
  } else {
    v.base_dims = dims;
    v.strides = test::row_major(dims);
    if (kind == 3 && test::count_of(dims) > 0) {
      const std::size_t d = static_cast<std::size_t>(g() % nd);
      v.offset = (dims[d] - 1) * v.strides[d];
      v.strides[d] = -v.strides[d];
    }
  }
  return v;
}

/// NumPy's segment i of m indices over an axis of n: [begin, end).
inline std::pair<index_t, index_t> segment(const std::vector<index_t>& ind, std::size_t i, index_t n) {
  const index_t b = ind[i];
  if (i + 1 == ind.size()) return {b, n};
  return {b, b < ind[i + 1] ? ind[i + 1] : b + 1};
}

inline double ref_op(op_kind k, double a, double b) {
  switch (k) {
    case k_plus: return a + b;
    case k_multiplies: return a * b;
    case k_minimum: return b < a ? b : a;
    default: return a < b ? b : a;  // maximum and the custom op (a maximum)
  }
}

/// Random indices into an axis of n (m of them): sorted, or in any order with
/// repeats and decreasing steps.
inline std::vector<index_t> random_indices(std::mt19937_64& g, index_t n, index_t m) {
  std::vector<index_t> ind(static_cast<std::size_t>(m));
  for (auto& i : ind) i = static_cast<index_t>(g() % static_cast<std::uint64_t>(n));
  if (g() % 2) std::sort(ind.begin(), ind.end());
  return ind;
}

/// The index type of op K's cases on element T: int, int64 or uint32, rotating
/// over the element types and ops (in all_ops' order: bool's three ops too), so
/// that each meets every element type and op. One per (T, K), not all three:
/// each (T, K, index type) instantiates its own engine (CUB's segmented
/// reduction on CUDA), and the index is read the same way whatever T and K are
/// (reduceat_geometry::begin, first_bad).
template <class T, op_kind K>
struct index_for {
  static constexpr int op_rank[] = {0, 3, 1, 2, 4};  // plus, multiplies, maximum, minimum, custom
  static constexpr int pos = [] {
    int i = 0, p = 0;
    for (const bool same : {std::is_same_v<T, bool>, std::is_same_v<T, std::int16_t>, std::is_same_v<T, std::uint16_t>,
                            std::is_same_v<T, int>, std::is_same_v<T, std::int64_t>, std::is_same_v<T, float>,
                            std::is_same_v<T, double>, std::is_same_v<T, __half>, std::is_same_v<T, __nv_bfloat16>}) {
      if (same) p = i;
      ++i;
    }
    return p;
  }();
  using type = std::tuple_element_t<(pos + op_rank[K]) % 3, std::tuple<int, std::int64_t, std::uint32_t>>;
};

/// One random case of op K on target Tg with element T, through f.
template <class Tg, class T, op_kind K, class F>
void one_case(std::mt19937_64& g, const F& f) {
  const int nd = 1 + static_cast<int>(g() % 3);
  std::vector<index_t> dims;
  for (int d = 0; d < nd; ++d) dims.push_back(static_cast<index_t>(g() % 10 == 0 ? 0 : 1 + g() % 6));
  const int ax = static_cast<int>(g() % static_cast<std::uint64_t>(nd));
  if (g() % 4 == 0) dims[static_cast<std::size_t>(ax)] = static_cast<index_t>(1 + g() % (nd == 1 ? 700 : 200));
  if (K == k_multiplies && dims[static_cast<std::size_t>(ax)] > 60) dims[static_cast<std::size_t>(ax)] = 60;
  const index_t n = dims[static_cast<std::size_t>(ax)];
  const index_t m = n == 0 ? 0 : static_cast<index_t>(g() % 12 == 0 ? 0 : 1 + g() % 9);
  const auto ind = random_indices(g, n, m);
  const int kind = static_cast<int>(g() % 4);
  const auto vs = make_view(g, dims, kind);
  using H = std::conditional_t<std::is_same_v<T, bool>, unsigned char, T>;  // (no std::vector<bool>)
  std::vector<H> hb(static_cast<std::size_t>(test::count_of(vs.base_dims)));
  for (auto& e : hb) e = static_cast<H>(random_elem<T, K>(g));
  const auto base = ufunc::asarray<Tg>(reinterpret_cast<const T*>(hb.data()), shape(vs.base_dims));
  const ufunc::array_view<const T, Tg> xv(base.data() + (hb.empty() ? 0 : vs.offset), shape(dims), vs.strides);
  const int given_axis = g() % 2 ? ax : ax - nd;
  INFO("dims " << test::dims_str(dims) << " view kind " << kind << " axis " << given_axis << " m " << m);
  // The indices (index_for's type), sometimes every other element of a longer array.
  const auto check = [&](const auto& r) {
    using R = typename std::decay_t<decltype(r)>::value_type;
    static_assert(std::is_same_v<R, typename want_acc<T, K>::type>, "f.reduceat's result type");
    auto rdims = dims;
    rdims[static_cast<std::size_t>(ax)] = m;
    REQUIRE(r.shape() == shape(rdims));
    const auto got = r.to_host();
    std::size_t bad = 0, first = 0;
    double first_got = 0, first_want = 0;
    for (index_t o = 0; o < test::count_of(rdims); ++o) {
      auto id = test::unravel(o, rdims);
      const auto [b, e] = segment(ind, static_cast<std::size_t>(id[static_cast<std::size_t>(ax)]), n);
      double acc = 0, mag = 0;
      for (index_t j = b; j < e; ++j) {
        id[static_cast<std::size_t>(ax)] = j;
        index_t off = vs.offset;
        for (std::size_t d = 0; d < dims.size(); ++d) off += id[d] * vs.strides[d];
        const double v = to_d(hb[static_cast<std::size_t>(off)]);
        acc = j == b ? v : ref_op(K, acc, v);
        mag += std::fabs(v);
      }
      const double gv = to_d(got[static_cast<std::size_t>(o)]);
      const double L = static_cast<double>(e - b);
      double tol = 0;
      if constexpr (floating<R>()) {
        const double eps = std::is_same_v<R, double> ? 0x1p-53 : 0x1p-24;
        // GPU: carried wide and rounded once (docs/reductions.md).
        if (K == k_plus)
          tol = std::is_same_v<Tg, ufunc::target::host> ? (std::ceil(L / 128) + std::ceil(std::log2(L)) + 18) * eps * mag
                                                        : eps * std::fabs(acc) + 32 * eps * mag;
        if (K == k_multiplies) tol = (L + 2) * eps * std::fabs(acc);
      }
      if (!(std::fabs(gv - acc) <= tol)) {
        if (!bad) first = static_cast<std::size_t>(o), first_got = gv, first_want = acc;
        ++bad;
      }
    }
    INFO("mismatches " << bad << "; first at " << first << ": got " << first_got << ", want " << first_want);
    CHECK(bad == 0);
  };
  const auto run_with = [&](auto ix) {
    using Ix = decltype(ix);
    std::vector<Ix> hi;
    const bool strided = g() % 3 == 0;
    for (auto i : ind) {
      hi.push_back(static_cast<Ix>(i));
      if (strided) hi.push_back(static_cast<Ix>(-1));  // skipped by the view
    }
    const auto ia = ufunc::asarray<Tg>(hi, shape(static_cast<index_t>(hi.size())));
    const ufunc::array_view<const Ix, Tg> iv(ia.data(), shape(m), {strided ? 2 : 1});
    check(f.reduceat(xv, iv, ufunc::axis(given_axis)));
  };
  run_with(typename index_for<T, K>::type{});
}

template <class T>
struct custom_max {  // a user's function object: no identity (CUB's `maybe` path)
  UFUNC_HD T operator()(const T& a, const T& b) const { return a < b ? b : a; }
};

template <class Tg, class T>
void custom_lambda_cases(std::mt19937_64& g, int cases) {
  const auto f = ufunc::vectorize<Tg>([] UFUNC_HD(T a, T b) { return a < b ? b : a; }, "larger");
  for (int c = 0; c < cases; ++c) one_case<Tg, T, k_custom>(g, f);
}

template <class Tg, class T>
void all_ops(std::mt19937_64& g, int cases) {
  INFO("type " << ufunc::detail::element_name<T>());
  for (int c = 0; c < cases; ++c) {
    one_case<Tg, T, k_plus>(g, ufunc::vectorize<Tg>(ufunc::plus{}, "add"));
    one_case<Tg, T, k_maximum>(g, ufunc::vectorize<Tg>(ufunc::maximum{}, "maximum"));
    one_case<Tg, T, k_minimum>(g, ufunc::vectorize<Tg>(ufunc::minimum{}, "minimum"));
    if constexpr (!std::is_same_v<T, bool>) {
      one_case<Tg, T, k_multiplies>(g, ufunc::vectorize<Tg>(ufunc::multiplies{}, "multiply"));
      one_case<Tg, T, k_custom>(g, ufunc::vectorize<Tg>(custom_max<T>{}, "larger"));
    }
  }
}

}  // namespace reduceat_test
