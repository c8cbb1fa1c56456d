// Axis arguments of reductions and ufunc methods.
#pragma once

#include <initializer_list>
#include <utility>
#include <vector>

namespace ufunc {

/// Reduce along one axis (negative counts from the end): `sum(A, ufunc::axis(0))`.
struct axis {
  int value;
  constexpr explicit axis(int a) noexcept : value(a) {}
};

/// Reduce along several axes: `sum(A, ufunc::axes{0, 2})`. An empty list reduces
/// nothing (the map is still applied).
struct axes {
  std::vector<int> list;
  axes(std::initializer_list<int> a) : list(a) {}
  explicit axes(std::vector<int> a) : list(std::move(a)) {}
};

/// Keep reduced dims as size 1 in the result: `sum(A, ufunc::axis(1), ufunc::keepdims)`.
struct keepdims_t {};
inline constexpr keepdims_t keepdims{};

/// An exclusive scan (CUB's ExclusiveScan): `f.accumulate(x, ufunc::axis(k), ufunc::exclusive)`,
/// `cumsum(x, ufunc::axis(k), ufunc::exclusive)`: element k is the op over the elements before it.
struct exclusive_t {};
inline constexpr exclusive_t exclusive{};

}  // namespace ufunc
