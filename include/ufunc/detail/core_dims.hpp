// Core dimensions (`ufunc::vec<D>`): a call with vec inputs becomes the same
// call with each vec input split into its D components (views of shape (...),
// one per element of the last axis) and the function wrapped so that it regroups
// them into `cuda::std::array<T, D>`. Every engine (elementwise, reductions,
// lazy expressions) then runs unchanged on plain operands: broadcasting, axes,
// overlap checks and the choice of kernel see real views. Host-only except the
// wrapper, which runs in kernels.
#pragma once

#include <array>
#include <cstddef>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include <cuda/std/array>
#include <cuda/std/tuple>

#include "../array_view.hpp"
#include "../error.hpp"
#include "../shape.hpp"
#include "../vec.hpp"
#include "arg_traits.hpp"
#include "operand.hpp"  // UFUNC_EXEC_CHECK_DISABLE

namespace ufunc::detail {

/// The core dimension of an argument: D for `vec<D>(x)`, 0 for anything else.
template <class A>
struct core_of : std::integral_constant<int, 0> {};
template <int D, class T, class Tg>
struct core_of<vec_arg<D, T, Tg>> : std::integral_constant<int, D> {};

template <class... A>
inline constexpr bool any_core_v = ((core_of<bare_t<A>>::value > 0) || ...);

/// `f` taking one argument per original input, called with the split inputs:
/// input i (core dimension Core_i, 0 for none) arrives as Core_i consecutive
/// values, or one value when it has none.
template <class F, int... Core>
struct core_fn {
  F f;

  template <std::size_t I>
  static UFUNC_HD constexpr int core_at() {
    constexpr int c[] = {Core...};
    return c[I];
  }
  /// Position of input I's first value among the split arguments.
  template <std::size_t I>
  static UFUNC_HD constexpr std::size_t start() {
    constexpr int c[] = {Core...};
    int s = 0;
    for (int j = 0; j < static_cast<int>(I); ++j) s += c[j] > 0 ? c[j] : 1;
    return static_cast<std::size_t>(s);
  }
  /// Whether split argument `pos` is the first value of an input: the split
  /// arguments of one vec input share its shape, so a layout never tells them
  /// apart (the pairwise kernels' fixed roles, cuda/reduce.hpp, are compiled
  /// only for splits between inputs).
  static UFUNC_HD constexpr bool starts_input(std::size_t pos) {
    constexpr int c[] = {Core...};
    std::size_t s = 0;
    for (int x : c) {
      if (s == pos) return true;
      s += x > 0 ? static_cast<std::size_t>(x) : 1;
    }
    return s == pos;
  }

  UFUNC_EXEC_CHECK_DISABLE
  template <class... X>
  UFUNC_HD decltype(auto) operator()(const X&... x) const {
    static_assert(sizeof...(X) == start<sizeof...(Core)>(), "ufunc: internal: split arguments do not match");
    return call(cuda::std::forward_as_tuple(x...), std::make_index_sequence<sizeof...(Core)>{});
  }

 private:
  UFUNC_EXEC_CHECK_DISABLE
  template <class Tup, std::size_t... I>
  UFUNC_HD decltype(auto) call(const Tup& t, std::index_sequence<I...>) const {
    return f(group<I>(t)...);
  }
  template <std::size_t I, class Tup>
  static UFUNC_HD decltype(auto) group(const Tup& t) {
    constexpr std::size_t s = start<I>();
    if constexpr (core_at<I>() == 0)
      return cuda::std::get<s>(t);
    else
      return gather<s>(t, std::make_index_sequence<static_cast<std::size_t>(core_at<I>())>{});
  }
  template <std::size_t S, class Tup, std::size_t... K>
  static UFUNC_HD auto gather(const Tup& t, std::index_sequence<K...>) {
    using T = std::decay_t<cuda::std::tuple_element_t<S, Tup>>;
    return cuda::std::array<T, sizeof...(K)>{{cuda::std::get<S + K>(t)...}};
  }
};

/// The wrapper of `f` for the first NIN arguments of the tuple type Args.
template <class F, class Args, class Seq>
struct core_fn_for;
template <class F, class Args, std::size_t... I>
struct core_fn_for<F, Args, std::index_sequence<I...>> {
  using type = core_fn<F, core_of<bare_t<std::tuple_element_t<I, Args>>>::value...>;
};

/// The D component views of a vec input (input number `i` of call `name`), after
/// checking its last axis.
template <int D, class T, class Tg, std::size_t... K>
auto split_vec(const char* name, std::size_t i, const vec_arg<D, T, Tg>& a, std::index_sequence<K...>) {
  const auto& v = a.view;
  const std::string what = std::string(name) + ": input " + std::to_string(i) + ", ufunc::vec<" + std::to_string(D) + ">,";
  if (v.ndim() == 0)
    throw shape_error(what + " is 0-d; its last axis is the core dimension and must have " + std::to_string(D) +
                      " elements");
  const int last = v.ndim() - 1;
  if (v.shape()[last] != D)
    throw shape_error(what + " has shape " + v.shape().str() + "; its last axis is the core dimension and must have " +
                      std::to_string(D) + " elements");
  const std::vector<index_t> dims(v.shape().begin(), v.shape().end() - 1);
  std::vector<index_t> st = v.strides();
  const index_t step = st.back();
  st.pop_back();
  const shape loop(dims);
  // A loop shape with no elements may come with a null pointer: keep it null.
  auto part = [&](std::size_t k) {
    const T* p = loop.count() > 0 ? v.data() + static_cast<index_t>(k) * step : v.data();
    return array_view<const T, Tg>(p, loop, st);
  };
  return std::make_tuple(part(K)...);
}

template <class A>
auto split_arg(const char* name, std::size_t i, A&& a) {
  using B = bare_t<A>;
  if constexpr (core_of<B>::value > 0)
    return split_vec(name, i, a, std::make_index_sequence<static_cast<std::size_t>(core_of<B>::value)>{});
  else
    return std::forward_as_tuple(std::forward<A>(a));
}

template <class Tup, std::size_t... I, std::size_t... J>
auto split_args(const char* name, Tup&& args, std::index_sequence<I...>, std::index_sequence<J...>) {
  constexpr std::size_t nin = sizeof...(I);
  return std::tuple_cat(split_arg(name, I, std::get<I>(std::forward<Tup>(args)))...,
                        std::forward_as_tuple(std::get<nin + J>(std::forward<Tup>(args))...));
}

/// Whether A has a shape() (arrays, views, pinned arrays, lazy expressions).
template <class A, class = void>
struct has_shape_fn : std::false_type {};
template <class A>
struct has_shape_fn<A, std::void_t<decltype(std::declval<const A&>().shape())>> : std::true_type {};

/// Input i's shape as the user gave it and its loop shape (a vec input's
/// without its last axis); false for a scalar.
template <class A>
bool user_and_loop_shape(const A& a, shape& user, shape& loop) {
  using B = bare_t<A>;
  if constexpr (core_of<B>::value > 0) {
    user = a.view.shape();
    loop = shape(user.begin(), user.end() - 1);  // (split_vec checked rank >= 1)
    return true;
  } else if constexpr (arg_traits<B>::is_vector) {
    user = loop = shape(static_cast<index_t>(a.size()));
    return true;
  } else if constexpr (has_shape_fn<B>::value) {
    user = loop = a.shape();
    return true;
  } else {
    return false;
  }
}

/// Checks that the loop shapes of the first NIN inputs broadcast; otherwise a
/// shape_error naming the shapes the user gave and each vec input's core
/// dimension (the split call would name its component views instead).
template <class Tup, std::size_t... I>
void check_loop_broadcast(const char* name, const Tup& args, std::index_sequence<I...>) {
  shape acc, user, loop;
  bool ok = true;
  auto add = [&](const auto& a) {
    if (user_and_loop_shape(a, user, loop)) ok = ok && broadcast_into(acc, loop);
  };
  (add(std::get<I>(args)), ...);
  if (ok) return;
  std::string users, loops, cores;
  auto describe = [&](std::size_t i, const auto& a) {
    using B = bare_t<decltype(a)>;
    if (!user_and_loop_shape(a, user, loop)) return;
    users += (users.empty() ? "" : " with ") + user.str();
    loops += (loops.empty() ? "" : " with ") + loop.str();
    if constexpr (core_of<B>::value > 0)
      cores += (cores.empty() ? "input " : "; input ") + std::to_string(i) + ": ufunc::vec<" +
               std::to_string(core_of<B>::value) + ">, its last axis of " + std::to_string(core_of<B>::value);
  };
  (describe(I, std::get<I>(args)), ...);
  throw shape_error(std::string(name) + ": cannot broadcast " + users + ": without the core dimensions (" + cores +
                    "), the loop shapes " + loops + " do not broadcast");
}

/// Runs `call(g, split...)`: `g` is `f` wrapped for the core dimensions of the
/// first NIN arguments of `args` (a tuple of references: inputs, then
/// controls), and `split` those arguments with every vec input split into its
/// components (controls passed on unchanged). Throws shape_error naming `name`
/// for a vec input whose last axis is not its core dimension, and for loop
/// shapes that do not broadcast (naming the inputs' own shapes).
template <std::size_t NIN, class F, class Tup, class Call>
decltype(auto) with_core_dims(const char* name, const F& f, Tup&& args, Call&& call) {
  using T = bare_t<Tup>;
  using G = typename core_fn_for<F, T, std::make_index_sequence<NIN>>::type;
  // The core dimensions first (split_args), then the loop shapes, as the user gave them.
  auto split = split_args(name, std::forward<Tup>(args), std::make_index_sequence<NIN>{},
                          std::make_index_sequence<std::tuple_size_v<T> - NIN>{});
  check_loop_broadcast(name, args, std::make_index_sequence<NIN>{});
  return std::apply([&](auto&&... a) -> decltype(auto) { return call(G{f}, std::forward<decltype(a)>(a)...); },
                    std::move(split));
}

}  // namespace ufunc::detail
