// The device side of f.at (vectorize.hpp): what b contributes per index, the
// range check and the compare-and-swap update, as parallel_for bodies (at
// namespace scope: nvcc refuses a class's private types in a kernel's template
// arguments).
#pragma once

#include <cstddef>
#include <type_traits>

#include "../array_view.hpp"
#include "../config.hpp"
#include "../ops.hpp"
#include "atomic.hpp"
#include "element.hpp"  // UFUNC_EXEC_CHECK_DISABLE

namespace ufunc::detail {

/// b per index (Array) or one value for all.
template <class V, class Target, bool Array>
struct at_operand {
  array_view<V, Target> arr;
  std::remove_const_t<V> value;
  UFUNC_HD auto operator()(index_t k) const { return Array ? arr(k) : value; }
};

/// Sets *bad when an index lies outside [-n, n) (every writer writes 1).
template <class Ix, class Target>
struct at_check {
  array_view<const Ix, Target> idx;
  index_t n;
  unsigned* bad;
  UFUNC_HD void operator()(std::size_t k) const {
    const auto i = static_cast<index_t>(idx(static_cast<index_t>(k)));
    if (i < -n || i >= n) *bad = 1u;
  }
};

/// a[i] = f(a[i], b[k]) as a compare-and-swap loop (device code; the host
/// target runs f.at's updates in order and never calls this). `plus` of b
/// values of a's type with a native atomic add (4- and 8-byte integers, float,
/// double) is that add, the same value f gives and one instruction instead of
/// a loop that retries under contention (np.add.at, the common case).
template <class F, class T, class Ix, class Bop, class Target>
struct at_update {
  F f;
  array_view<T, Target> a;
  array_view<const Ix, Target> idx;
  Bop b;
  static constexpr bool native_add =
      std::is_same_v<F, plus> && std::is_same_v<std::remove_cv_t<decltype(std::declval<const Bop&>()(index_t(0)))>, T> &&
      atomic_supported_v<T> && (sizeof(T) == 4 || sizeof(T) == 8);
  UFUNC_EXEC_CHECK_DISABLE
  UFUNC_HD void operator()(std::size_t k) const {
    auto i = static_cast<index_t>(idx(static_cast<index_t>(k)));
    if (i < 0) i += a.shape()[0];
    T* p = &a(i);
#if UFUNC_DEVICE_PASS
    if constexpr (native_add) {
      (void)device_add<T>(p, b(static_cast<index_t>(k)));
    } else {
      T old = device_volatile_load(p), seen;
      do {
        seen = old;
        old = device_cas(p, seen, static_cast<T>(f(seen, b(static_cast<index_t>(k)))));
      } while (to_bits(old) != to_bits(seen));
    }
#else
    *p = static_cast<T>(f(*p, b(static_cast<index_t>(k))));
#endif
  }
};

}  // namespace ufunc::detail
