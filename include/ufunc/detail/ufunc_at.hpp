// The device side of f.at (vectorize.hpp): what b contributes per index, the
// range check and the compare-and-swap update, as parallel_for bodies (at namespace scope: nvcc refuses a class's private types
// in a kernel's template arguments).
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

/// f.at on a device: whether the updates should check each of the m indices
/// (of `ix` bytes) themselves, with a copy of a (n elements of `elem` bytes)
/// kept to put back if one was out of range, rather than a separate pass
/// reading every index first: when a's bytes are at most an eighth of the
/// indices' (the copy, two moves of a's bytes, then costs at most a quarter of
/// the pass it replaces).
inline bool at_checked_updates_pay(index_t n, std::size_t elem, index_t m, std::size_t ix) {
  return 8 * static_cast<double>(n) * double(elem) <= static_cast<double>(m) * double(ix);
}

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
  /// Non-null: the index is checked here (the caller keeps a copy of a to put
  /// back, so a bad index anywhere leaves the caller's array as it was): out of
  /// [-n, n), *bad = 1 and no update.
  unsigned* bad = nullptr;
  static constexpr bool native_add =
      std::is_same_v<F, plus> && std::is_same_v<std::remove_cv_t<decltype(std::declval<const Bop&>()(index_t(0)))>, T> &&
      atomic_supported_v<T> && (sizeof(T) == 4 || sizeof(T) == 8);
  using value = std::remove_cv_t<decltype(std::declval<const Bop&>()(index_t(0)))>;
  UFUNC_EXEC_CHECK_DISABLE
  UFUNC_HD void operator()(std::size_t k) const {
    update(static_cast<index_t>(idx(static_cast<index_t>(k))), b(static_cast<index_t>(k)));
  }
  /// a[i] = f(a[i], v), i an index as given (negative from the end).
  UFUNC_EXEC_CHECK_DISABLE
  UFUNC_HD void update(index_t i, const value& v) const {
    const index_t n = a.shape()[0];
    if (bad && (i < -n || i >= n)) {
      *bad = 1u;
      return;
    }
    if (i < 0) i += n;
    T* p = &a(i);
#if UFUNC_DEVICE_PASS
    if constexpr (native_add) {
      (void)device_add<T>(p, v);
    } else {
      T old = device_volatile_load(p), seen;
      do {
        seen = old;
        old = device_cas(p, seen, static_cast<T>(f(seen, v)));
      } while (to_bits(old) != to_bits(seen));
    }
#else
    *p = static_cast<T>(f(*p, v));
#endif
  }
};

/// U updates an item: item t takes k = t, t + step, ..., t + (U - 1) step (< m),
/// all of its indices and values loaded before the first atomic, so that a
/// thread has U loads in flight rather than one (each round of the grid still
/// reads consecutive k: coalesced).
template <int U, class Upd>
struct at_update_rounds {
  Upd u;
  index_t m, step;
  UFUNC_EXEC_CHECK_DISABLE
  UFUNC_HD void operator()(std::size_t t) const {
    index_t i[U];
    typename Upd::value v[U];
    for (int r = 0; r < U; ++r) {
      const index_t k = static_cast<index_t>(t) + r * step;
      if (k < m) {
        i[r] = static_cast<index_t>(u.idx(k));
        v[r] = u.b(k);
      }
    }
    for (int r = 0; r < U; ++r)
      if (static_cast<index_t>(t) + r * step < m) u.update(i[r], v[r]);
  }
};

}  // namespace ufunc::detail
