// What a call argument is: an array (owning or a view), a host container, or a
// scalar broadcast everywhere; its element type and the target whose memory holds
// it. The front end (call.hpp) and `ufunc::out` classify arguments with these.
#pragma once

#include <type_traits>
#include <utility>
#include <vector>

#include "../array.hpp"
#include "../array_view.hpp"
#include "../pinned_array.hpp"
#include "../stream.hpp"

namespace ufunc {
/// An N-d array split along axis 0 over several devices (sharded_array.hpp).
template <class T, class Target = target::device>
class sharded_array;
/// A lazy expression over sharded arrays (sharded.hpp).
template <class Maker, class... A>
class sharded_expression;
/// `ufunc::vec<D>` of a sharded array (vec.hpp).
template <int D, class S>
struct sharded_vec_arg;
}  // namespace ufunc

namespace ufunc::detail {

/// A sharded_array, and the `ufunc::out(...)` entry naming one: calls given
/// either run once per shard (sharded.hpp), never through the paths below.
template <class A>
struct is_sharded : std::false_type {};
template <class T, class Tg>
struct is_sharded<sharded_array<T, Tg>> : std::true_type {};
template <class S>
struct sharded_out {
  S* array;
};
template <class A>
struct is_sharded_expr : std::false_type {};
template <class M, class... A>
struct is_sharded_expr<sharded_expression<M, A...>> : std::true_type {};
template <class A>
struct is_sharded_vec : std::false_type {};
template <int D, class S>
struct is_sharded_vec<sharded_vec_arg<D, S>> : std::true_type {};
/// A sharded array, its points (`vec<D>`) or a lazy expression over sharded
/// arrays: a call, lazy call or reduction given one runs once per shard (sharded.hpp).
template <class A>
inline constexpr bool is_sharded_operand_v =
    is_sharded<std::remove_cv_t<std::remove_reference_t<A>>>::value ||
    is_sharded_vec<std::remove_cv_t<std::remove_reference_t<A>>>::value ||
    is_sharded_expr<std::remove_cv_t<std::remove_reference_t<A>>>::value;
/// Declared here, defined in sharded.hpp: the sharded paths of vectorize and
/// the reductions (so those headers need not include sharded.hpp; a program
/// that has a sharded_array includes it).
template <class... A>
struct sharded_ops;
template <class A>
struct is_sharded_out : std::false_type {};
template <class S>
struct is_sharded_out<sharded_out<S>> : std::true_type {};

template <class A>
struct arg_traits {  // anything else is a scalar, broadcast everywhere
  static constexpr bool is_array = false, is_vector = false;
  /// Contiguous and row-major by its type (an owning array): engines may skip
  /// their strided paths, which then cost no compile time.
  static constexpr bool is_dense = false;
  using value_type = A;
  using target_type = void;
};
template <class T, class Tg>
struct arg_traits<array<T, Tg>> {
  static constexpr bool is_array = true, is_vector = false, is_dense = true;
  using value_type = T;
  using target_type = Tg;
};
template <class T, class Tg>
struct arg_traits<array_view<T, Tg>> {
  static constexpr bool is_array = true, is_vector = false, is_dense = false;
  using value_type = std::remove_const_t<T>;
  using target_type = Tg;
};
/// Page-locked host memory: a host array (the CUDA backend streams it).
template <class T>
struct arg_traits<pinned_array<T>> {
  static constexpr bool is_array = true, is_vector = false, is_dense = true;
  using value_type = T;
  using target_type = target::host;
};
template <class T, class Alloc>
struct arg_traits<std::vector<T, Alloc>> {
  static_assert(!std::is_same_v<T, bool>, "ufunc: std::vector<bool> has no contiguous storage; use std::vector<char>");
  static constexpr bool is_array = false, is_vector = true, is_dense = false;
  using value_type = T;
  using target_type = target::host;
};

/// A pinned_array: host memory that a device call streams (and a reduction,
/// whose target otherwise follows its arrays, runs on the device).
template <class A>
struct is_pinned : std::false_type {};
template <class T>
struct is_pinned<pinned_array<T>> : std::true_type {};

/// Containers of other libraries that are arrays in disguise (interop.hpp
/// specializes this for Thrust's device_vector and host_vector): `view(a)` gives
/// the array_view a call uses in their place. The public entry points turn such
/// arguments into views first (`adapt`), so nothing below them knows the type.
template <class A>
struct foreign_array : std::false_type {};
template <class A>
inline constexpr bool is_foreign_v = foreign_array<std::remove_cv_t<std::remove_reference_t<A>>>::value;
/// A foreign container as its view; anything else passed through unchanged.
template <class A>
decltype(auto) adapt(A&& a) {
  if constexpr (is_foreign_v<A>)
    return foreign_array<std::remove_cv_t<std::remove_reference_t<A>>>::view(a);
  else
    return std::forward<A>(a);
}

template <class A>
struct is_view : std::false_type {};
template <class T, class Tg>
struct is_view<array_view<T, Tg>> : std::true_type {};

}  // namespace ufunc::detail
