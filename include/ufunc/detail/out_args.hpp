// What the front end asks of ufunc::out (out.hpp): whether an argument is an
// out(...), the view an out entry becomes, and whether it names sharded arrays.
#pragma once

#include <type_traits>
#include <utility>

#include "arg_traits.hpp"

namespace ufunc {
template <class... V>
struct out_t;

namespace detail {
template <class A>
struct is_out : std::false_type {};
template <class... V>
struct is_out<out_t<V...>> : std::true_type {};

template <class A>
auto out_view(A&& a) {
  using B = bare_t<A>;
  static_assert(arg_traits<B>::is_array || is_sharded<B>::value || is_foreign_v<B>,
                "ufunc::out: takes arrays or array views");
  if constexpr (is_foreign_v<B>) {  // a Thrust vector: its view (interop.hpp)
    static_assert(std::is_lvalue_reference_v<A> && !std::is_const_v<std::remove_reference_t<A>>,
                  "ufunc::out: pass a non-const Thrust vector lvalue");
    return adapt(a);
  } else if constexpr (is_sharded<B>::value) {  // a sharded call writes each shard (sharded.hpp)
    static_assert(std::is_lvalue_reference_v<A> && !std::is_const_v<std::remove_reference_t<A>>,
                  "ufunc::out: pass a non-const sharded_array lvalue");
    return sharded_out<B>{&a};
  } else if constexpr (is_view<B>::value) {
    static_assert(!std::is_const_v<typename B::element_type>, "ufunc::out: a view of const elements cannot be written");
    return B(a);
  } else {
    static_assert(std::is_lvalue_reference_v<A> && !std::is_const_v<std::remove_reference_t<A>>,
                  "ufunc::out: pass a non-const array lvalue (or a view)");
    return a.view();
  }
}
/// An `out(...)` argument naming sharded arrays (sharded.hpp runs such calls).
template <class B>
struct has_sharded_out : std::false_type {};
template <class... V>
struct has_sharded_out<out_t<V...>> : std::bool_constant<(is_sharded_out<V>::value || ...)> {};
template <class A>
constexpr bool sharded_out_arg() {
  return has_sharded_out<bare_t<A>>::value;
}
}  // namespace detail
}  // namespace ufunc
