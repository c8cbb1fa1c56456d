// What a call's function can be given, checked before anything else of the call
// is instantiated, so that a function called with the wrong inputs stops the
// build with one message that says what to change:
//   - the wrong number of inputs (the function's arity and the count given,
//     when the function has one non-template call operator);
//   - a `cuda::std::array<T, D>` parameter given plain elements (wrap the input
//     in `ufunc::vec<D>`);
//   - otherwise, inputs the function cannot be called with (a generic function
//     given the wrong count, or element types it does not take).
// Compile-time only.
#pragma once

#include <cstddef>
#include <tuple>
#include <type_traits>

#include <cuda/std/array>

#include "../expression.hpp"
#include "../vec.hpp"
#include "arg_traits.hpp"

namespace ufunc::detail {

/// The element type a call passes to its function for argument type A: an
/// array's or expression's element type, `cuda::std::array<T, D>` for
/// `vec<D>(x)`, a scalar's own type.
template <class A>
struct fn_arg {
  using type = typename arg_traits<A>::value_type;
};
template <int D, class T, class Tg>
struct fn_arg<vec_arg<D, T, Tg>> {
  using type = cuda::std::array<T, static_cast<std::size_t>(D)>;
};
template <class Tg, class Fn, class... L>
struct fn_arg<expression<Tg, Fn, L...>> {
  using type = typename expression<Tg, Fn, L...>::value_type;
};
template <class A>
using fn_arg_t = typename fn_arg<bare_t<A>>::type;

/// The parameters of a function with one known signature: a function pointer,
/// or a class with one non-template `operator()`. `arity` is -1 when unknown
/// (a generic lambda, an overloaded or templated call operator).
template <class... P>
struct param_list {
  static constexpr int arity = static_cast<int>(sizeof...(P));
  using types = std::tuple<std::decay_t<P>...>;
};
struct unknown_params {
  static constexpr int arity = -1;
  using types = void;
};
template <class M>
struct member_params : unknown_params {};
#define UFUNC_MEMBER_PARAMS(QUAL)                         \
  template <class R, class C, class... P>                 \
  struct member_params<R (C::*)(P...) QUAL> : param_list<P...> {};
UFUNC_MEMBER_PARAMS()
UFUNC_MEMBER_PARAMS(const)
UFUNC_MEMBER_PARAMS(noexcept)
UFUNC_MEMBER_PARAMS(const noexcept)
UFUNC_MEMBER_PARAMS(&)
UFUNC_MEMBER_PARAMS(const&)
#undef UFUNC_MEMBER_PARAMS

template <class F, class = void>
struct params_of : unknown_params {};
template <class F>
struct params_of<F, std::void_t<decltype(&F::operator())>> : member_params<decltype(&F::operator())> {};
template <class R, class... P>
struct params_of<R (*)(P...)> : param_list<P...> {};
template <class R, class... P>
struct params_of<R (*)(P...) noexcept> : param_list<P...> {};

template <class T>
struct is_cuda_array : std::false_type {};
template <class T, std::size_t D>
struct is_cuda_array<cuda::std::array<T, D>> : std::true_type {};

/// True when a `cuda::std::array` parameter (of the known list Params) is given
/// an element that is not one: the input lacks `ufunc::vec<D>`.
template <class Params, class... E>
struct misses_vec : std::false_type {};
template <class... P, class... E>
struct misses_vec<std::tuple<P...>, E...>
    : std::bool_constant<((is_cuda_array<P>::value && !is_cuda_array<std::decay_t<E>>::value) || ...)> {};

/// False, but only once instantiated: keeps a static_assert to the
/// specialisation that is used.
template <class...>
inline constexpr bool always_false = false;

// A static_assert's message must be a string literal (until C++26), so each
// pair of counts up to 8 has its own; larger ones share a message without the
// numbers. Every assertion depends on a parameter: it fires only when
// instantiated.
template <int Takes, std::size_t Given, class Tag>
struct wrong_input_count {
  static_assert(always_false<Tag>,
                "ufunc call: the function takes another number of inputs than were given (the two counts are the "
                "arguments of ufunc::detail::wrong_input_count above)");
};
#define UFUNC_INPUTS_0 " inputs"
#define UFUNC_INPUTS_1 " input"
#define UFUNC_INPUTS_2 " inputs"
#define UFUNC_INPUTS_3 " inputs"
#define UFUNC_INPUTS_4 " inputs"
#define UFUNC_INPUTS_5 " inputs"
#define UFUNC_INPUTS_6 " inputs"
#define UFUNC_INPUTS_7 " inputs"
#define UFUNC_INPUTS_8 " inputs"
#define UFUNC_GIVEN_1 " was"
#define UFUNC_GIVEN_2 " were"
#define UFUNC_GIVEN_3 " were"
#define UFUNC_GIVEN_4 " were"
#define UFUNC_GIVEN_5 " were"
#define UFUNC_GIVEN_6 " were"
#define UFUNC_GIVEN_7 " were"
#define UFUNC_GIVEN_8 " were"
#define UFUNC_WRONG_COUNT(T, G)                                                                                 \
  template <class Tag>                                                                                          \
  struct wrong_input_count<T, G, Tag> {                                                                         \
    static_assert(always_false<Tag>,                                                                             \
                  "ufunc call: the function takes " #T UFUNC_INPUTS_##T ", " #G UFUNC_GIVEN_##G " given");     \
  };
#define UFUNC_WRONG_COUNTS(T)                                                                           \
  UFUNC_WRONG_COUNT(T, 1) UFUNC_WRONG_COUNT(T, 2) UFUNC_WRONG_COUNT(T, 3) UFUNC_WRONG_COUNT(T, 4)       \
  UFUNC_WRONG_COUNT(T, 5) UFUNC_WRONG_COUNT(T, 6) UFUNC_WRONG_COUNT(T, 7) UFUNC_WRONG_COUNT(T, 8)
UFUNC_WRONG_COUNTS(0)
UFUNC_WRONG_COUNTS(1)
UFUNC_WRONG_COUNTS(2)
UFUNC_WRONG_COUNTS(3)
UFUNC_WRONG_COUNTS(4)
UFUNC_WRONG_COUNTS(5)
UFUNC_WRONG_COUNTS(6)
UFUNC_WRONG_COUNTS(7)
UFUNC_WRONG_COUNTS(8)
#undef UFUNC_WRONG_COUNTS
#undef UFUNC_WRONG_COUNT

/// The function cannot be called with N inputs of element types E... (shown
/// in the instantiation of this template, above the message).
template <std::size_t N, class... E>
struct not_callable {
  static_assert(always_false<E...>,
                "ufunc call: the function cannot be called with these inputs (their element types are the "
                "arguments of ufunc::detail::not_callable above; a generic function may take another count)");
};
#define UFUNC_NOT_CALLABLE(N)                                                                             \
  template <class... E>                                                                                   \
  struct not_callable<N, E...> {                                                                          \
    static_assert(always_false<E...>,                                                                  \
                  "ufunc call: the function cannot be called with these " #N UFUNC_INPUTS_##N             \
                  " (their element types are the arguments of ufunc::detail::not_callable above; a "      \
                  "generic function may take another count)");                                            \
  };
UFUNC_NOT_CALLABLE(1)
UFUNC_NOT_CALLABLE(2)
UFUNC_NOT_CALLABLE(3)
UFUNC_NOT_CALLABLE(4)
UFUNC_NOT_CALLABLE(5)
UFUNC_NOT_CALLABLE(6)
UFUNC_NOT_CALLABLE(7)
UFUNC_NOT_CALLABLE(8)
#undef UFUNC_NOT_CALLABLE
#undef UFUNC_INPUTS_0
#undef UFUNC_INPUTS_1
#undef UFUNC_INPUTS_2
#undef UFUNC_INPUTS_3
#undef UFUNC_INPUTS_4
#undef UFUNC_INPUTS_5
#undef UFUNC_INPUTS_6
#undef UFUNC_INPUTS_7
#undef UFUNC_INPUTS_8
#undef UFUNC_GIVEN_1
#undef UFUNC_GIVEN_2
#undef UFUNC_GIVEN_3
#undef UFUNC_GIVEN_4
#undef UFUNC_GIVEN_5
#undef UFUNC_GIVEN_6
#undef UFUNC_GIVEN_7
#undef UFUNC_GIVEN_8

template <class... E>
struct needs_vec {
  static_assert(always_false<E...>,
                "ufunc call: the function takes a cuda::std::array<T, D> (a point) where an input gives single "
                "elements: wrap that input in ufunc::vec<D>(x) (its last axis, of length D, becomes the point)");
};
template <class... E>
struct wrong_element_types {
  static_assert(always_false<E...>,
                "ufunc call: the function's parameters do not take the inputs' element types (listed in the "
                "instantiation of ufunc::detail::wrong_element_types above)");
};

/// True when `F` can be called with elements of types E... (as the kernels call
/// it). When false, `report_call<F, E...>()` stops the build with the message
/// that fits; call it in a branch (`if constexpr`) that instantiates nothing else.
template <class F, class... E>
inline constexpr bool callable_with_v = std::is_invocable_v<const F&, E...>;

template <class F, class... E>
void report_call() {
  using P = params_of<F>;
  constexpr std::size_t n = sizeof...(E);
  if constexpr (P::arity >= 0 && static_cast<std::size_t>(P::arity) != n)
    (void)sizeof(wrong_input_count<P::arity, n, F>);
  else if constexpr (P::arity < 0)
    (void)sizeof(not_callable<n, E...>);
  else if constexpr (misses_vec<typename P::types, E...>::value)
    (void)sizeof(needs_vec<E...>);
  else
    (void)sizeof(wrong_element_types<E...>);
}


/// An expression whose function has several outputs: it cannot be an input,
/// and building the node says so (expression.hpp), so the check leaves it be.
template <class A, class = void>
inline constexpr bool several_outputs_v = false;
template <class A>
inline constexpr bool several_outputs_v<A, std::enable_if_t<is_expression_v<A>>> =
    result_traits<typename bare_t<A>::value_type>::nout != 1;

/// The first NIN arguments of a call (the tuple of their types Args) as inputs
/// of F: `ok` when F takes their elements; `report()` stops the build otherwise.
template <class F, class Args, std::size_t NIN, class Seq = std::make_index_sequence<NIN>>
struct inputs_check;
template <class F, class... A, std::size_t NIN, std::size_t... I>
struct inputs_check<F, std::tuple<A...>, NIN, std::index_sequence<I...>> {
  static constexpr bool ok = callable_with_v<F, fn_arg_t<std::tuple_element_t<I, std::tuple<A...>>>...> ||
                             (several_outputs_v<std::tuple_element_t<I, std::tuple<A...>>> || ...);
  static void report() { report_call<F, fn_arg_t<std::tuple_element_t<I, std::tuple<A...>>>...>(); }
};

/// What a call that stopped the build at its message returns: nothing further
/// of the call is instantiated, so no other error follows it.
struct failed_call {};

}  // namespace ufunc::detail
