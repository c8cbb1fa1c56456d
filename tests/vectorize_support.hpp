// Shared helpers of the vectorize tests (test_vectorize*.cpp).
#pragma once

#include "test_support.hpp"

#include <atomic>
#include <cmath>
#include <cstdint>
#include <numeric>
#include <random>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

using ufunc::index_t;
using ufunc::shape;
using test::ref_operand;

namespace vectorize_test {

/// A generic binary function object (nvcc does not allow generic
/// __host__ __device__ lambdas): the result type follows the argument types.
struct add_op {
  template <class A, class B>
  UFUNC_HD auto operator()(A a, B b) const {
    return a + b;
  }
};

/// A reference operand: host data and how the result indexes it.
template <class T>
struct href {
  const std::vector<T>* data;
  ref_operand lay;
};
template <class T>
href<T> H(const std::vector<T>& d, const ref_operand& l) {
  return {&d, l};
}
template <class T>
href<T> H(const std::vector<T>& d, const std::vector<index_t>& dims) {
  return {&d, test::contiguous(dims)};
}

/// r[i] = f(in_0[...], in_1[...], ...) over the row-major result of shape `out`.
template <class R, class F, class... T>
std::vector<R> reference(const std::vector<index_t>& out, F f, const href<T>&... in) {
  const index_t n = test::count_of(out);
  std::vector<R> r(static_cast<std::size_t>(n));
  for (index_t i = 0; i < n; ++i) {
    const auto idx = test::unravel(i, out);
    r[static_cast<std::size_t>(i)] =
        static_cast<R>(f((*in.data)[static_cast<std::size_t>(test::bcast_offset(idx, in.lay))]...));
  }
  return r;
}

template <class T>
ufunc::array<T> dev(const std::vector<T>& h, const std::vector<index_t>& dims) {
  return ufunc::to_device(h, test::shape_of(dims));
}

template <class T, class Tg>
ufunc::array_view<T, Tg> view_of(ufunc::array<T, Tg>& base, const ref_operand& l) {
  return ufunc::make_view<Tg>(base.data() + l.offset, test::shape_of(l.dims), l.strides);
}

/// Broadcast of compatible dims (each dim is 1 or the common value).
inline std::vector<index_t> bcast_dims(const std::vector<std::vector<index_t>>& shapes) {
  std::size_t rank = 0;
  for (const auto& s : shapes) rank = std::max(rank, s.size());
  std::vector<index_t> out(rank, 1);
  for (const auto& s : shapes)
    for (std::size_t k = 0; k < s.size(); ++k) {
      auto& o = out[rank - s.size() + k];
      if (s[k] != 1) o = s[k];
    }
  return out;
}

inline std::size_t nelem(const std::vector<index_t>& dims) { return static_cast<std::size_t>(test::count_of(dims)); }

struct bcase {
  std::vector<index_t> a, b, out;
};
// What NumPy gives for a + b with these shapes.
const std::vector<bcase> numpy_table = {
    {{4, 3}, {3}, {4, 3}},
    {{4, 1}, {3}, {4, 3}},
    {{2, 1, 3}, {4, 1}, {2, 4, 3}},
    {{}, {5}, {5}},
    {{5}, {}, {5}},
    {{}, {}, {}},
    {{0}, {1}, {0}},
    {{1}, {0}, {0}},
    {{0, 3}, {1, 3}, {0, 3}},
    {{1, 0}, {5, 1}, {5, 0}},
    {{3, 1}, {1, 4}, {3, 4}},
    {{8, 1, 6, 1}, {7, 1, 5}, {8, 7, 6, 5}},
    {{15, 3, 5}, {15, 1, 5}, {15, 3, 5}},
    {{15, 3, 5}, {3, 1}, {15, 3, 5}},
    {{1, 1}, {1}, {1, 1}},
    {{5, 4}, {1}, {5, 4}},
    {{1, 2, 1, 2, 1, 2, 1, 2}, {2, 1, 2, 1, 2, 1, 2, 1}, {2, 2, 2, 2, 2, 2, 2, 2}},
    {{3}, {1, 1, 1, 1, 1, 1, 1, 1}, {1, 1, 1, 1, 1, 1, 1, 3}},
    {{4097}, {1}, {4097}},
    {{3, 6007}, {3, 1}, {3, 6007}},
    {{6007, 3}, {3}, {6007, 3}},
    {{1, 6007}, {3, 1}, {3, 6007}},
    // Long rows (the CUDA backend's row-tiled kernel): rows that start aligned or
    // not, lengths around a tile, broadcast and contiguous operands.
    {{4, 4096}, {4096}, {4, 4096}},
    {{5, 1024}, {5, 1}, {5, 1024}},
    {{2, 3, 2048}, {3, 1}, {2, 3, 2048}},
    {{512}, {1}, {512}},
    {{511}, {1}, {511}},
    {{2, 513}, {1, 513}, {2, 513}},
    {{2, 4097}, {2, 1}, {2, 4097}},
    {{16385}, {1}, {16385}},
    {{3, 1, 70001}, {1, 2, 1}, {3, 2, 70001}},
};

/// Argument I of a call: a scalar at position S, else the array.
template <std::size_t I, std::size_t S>
decltype(auto) arg_at(std::vector<ufunc::array<int>>& arrs, const std::vector<std::vector<int>>& hs) {
  if constexpr (I == S)
    return int(hs[I][0]);
  else
    return (arrs[I]);
}

/// Calls a K-input ufunc on arrays of assorted broadcast shapes (a scalar at
/// position S, none when S >= K) and checks it against the reference.
template <std::size_t S, class UF, class RF, std::size_t... I>
void check_inputs(const UF& uf, RF rf, std::uint64_t seed, std::index_sequence<I...>) {
  constexpr std::size_t K = sizeof...(I);
  const std::vector<std::vector<index_t>> pool = {{3, 4, 5}, {4, 5}, {5}, {1, 4, 1}, {3, 1, 1}, {}, {1, 1, 5}, {4, 1}};
  std::vector<std::vector<index_t>> dims(K);
  for (std::size_t k = 0; k < K; ++k) dims[k] = k == S ? std::vector<index_t>{} : pool[(k + K) % pool.size()];
  std::vector<std::vector<int>> hs;
  std::vector<ufunc::array<int>> arrs;
  for (std::size_t k = 0; k < K; ++k) {
    hs.push_back(test::random_vector<int>(nelem(dims[k]), seed + k, -50, 50));
    arrs.push_back(dev(hs[k], dims[k]));
  }
  const auto out = bcast_dims(dims);
  INFO("inputs " << K << ", scalar at " << S << ", result " << test::dims_str(out));
  auto r = uf(arg_at<I, S>(arrs, hs)...);
  CHECK(r.shape() == test::shape_of(out));
  test::expect_equal(r.to_host(), reference<int>(out, rf, href<int>{&hs[I], test::contiguous(dims[I])}...));
}

}  // namespace vectorize_test

using namespace vectorize_test;
