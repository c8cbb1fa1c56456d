// ufunc::vec<D>: marks an input whose last axis is a fixed core dimension of D
// elements (NumPy's generalized ufunc signature "(D)"), passed to the function
// as one `cuda::std::array<T, D>`. A vocabulary header: the calls that take it
// (vectorize.hpp, reduce.hpp) split it in detail/core_dims.hpp.
#pragma once

#include <type_traits>

#include "array.hpp"
#include "array_view.hpp"

namespace ufunc {

/// An input whose last axis (of D elements) is consumed: made by `ufunc::vec<D>(x)`.
/// Holds a view; the array it views must outlive the call (or the evaluation of
/// a lazy expression built from it).
template <int D, class T, class Target>
struct vec_arg {
  static_assert(D >= 1, "ufunc::vec<D>: D must be at least 1");
  array_view<const T, Target> view;
};

/// Marks `x` (an array or a view of shape (..., D)) as points of D coordinates:
/// a ufunc call, `f.lazy(...)`, `reduce`/`map_reduce` pass each point to the
/// function as `cuda::std::array<T, D>`, and broadcasting, axes and the result
/// shape are those of the remaining axes ("loop" axes, as NumPy's generalized
/// ufuncs): `map_reduce(k, plus{})(vec<3>(X), vec<3>(Y), B, axis(1))` with X of
/// shape (N, 1, 3), Y (1, M, 3) and B (1, M) reduces over M. A last axis of
/// another length, or a 0-d input, throws `shape_error` naming the core
/// dimension when the call is made. Other operations (ufunc methods, matmul,
/// transpose, `ufunc::sum` without a map) do not take it.
template <int D, class T, class Target>
vec_arg<D, std::remove_const_t<T>, Target> vec(const array_view<T, Target>& x) {
  return {x};
}
template <int D, class T, class Target>
vec_arg<D, T, Target> vec(const array<T, Target>& x) {
  return {x.view()};
}
/// A temporary array would be gone before the call reads it.
template <int D, class T, class Target>
void vec(array<T, Target>&& x) = delete;

template <class T, class Target>
class sharded_array;

/// A sharded array's points (`ufunc::vec<D>(x)` of a sharded_array): made for
/// calls, `f.lazy` and reductions over sharded arrays (sharded.hpp), where each
/// shard is passed as `vec<D>` of its rows. Holds a pointer: the sharded array
/// must outlive the call or the lazy expression's evaluation.
template <int D, class S>
struct sharded_vec_arg {
  static_assert(D >= 1, "ufunc::vec<D>: D must be at least 1");
  static constexpr int core = D;
  const S* array;
};

/// Marks a sharded array of shape (N, ..., D) (rank >= 2: axis 0, the sharded
/// axis, is a loop axis) as points, as `vec<D>` of an array: with X sharded and
/// Y a plain (M, D) array given on every rank or device,
/// `map_reduce(k, plus{})(vec<3>(X), vec<3>(Y), axis(1))` is a kernel sum of
/// every x_i against every y_j, each shard over its own x_i; with Y sharded
/// over the same devices too, each shard takes Y one block at a time
/// (docs/multi_gpu.md, "Both operands sharded").
template <int D, class T, class Target>
sharded_vec_arg<D, sharded_array<T, Target>> vec(const sharded_array<T, Target>& x) {
  return {&x};
}
template <int D, class T, class Target>
void vec(sharded_array<T, Target>&& x) = delete;

}  // namespace ufunc
