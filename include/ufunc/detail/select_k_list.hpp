// The K best (value, index) pairs of one output of ufunc::argmin_k / argmax_k /
// min_k / max_k (select_k.hpp), shared by the host loops and the GPU kernels:
// the order of the results (ufunc::topk's), a sorted list of K entries kept in
// registers, and how entries go into it. Element evaluation only: no launch,
// no memory.
//
// The order is a strict total order on (value, index) pairs: values in
// NumPy's sort order (ascending with NaN last; for the largest, descending
// with NaN first), equal values (-0.0 and +0.0, NaNs alike) by the lower
// index. So the K first pairs of a row, and their order, are one set whatever
// the order the pairs are offered in: a row may be cut into chunks, each
// chunk's K best found apart and the lists merged, and the result is the
// same. That is why results depend neither on the thread count nor on the
// backend's blocking.
#pragma once

#include <cstdint>
#include <type_traits>

#include <cuda/std/limits>

#include "../config.hpp"
#include "element.hpp"

namespace ufunc::detail {

/// The order of argmin_k (Largest = false) or argmax_k's results.
template <class T, bool Largest>
struct select_order {
  /// What values are compared as (the 16-bit floats as float).
  using cmp_type = std::conditional_t<is_half_v<T>, float, T>;
  static UFUNC_HD cmp_type key(const T& v) { return static_cast<cmp_type>(v); }

  /// a's value comes strictly before b's.
  static UFUNC_HD bool less(const T& a, const T& b) {
    const cmp_type x = key(a), y = key(b);
    if constexpr (Largest) {
      if (is_nan(x)) return !is_nan(y);  // NaN first
      return y < x;
    } else {
      if (is_nan(y)) return !is_nan(x);  // NaN last
      return x < y;
    }
  }
  /// (a, ia) comes before (b, ib): the value, then the lower index.
  template <class Idx>
  static UFUNC_HD bool before(const T& a, Idx ia, const T& b, Idx ib) {
    return less(a, b) || (!less(b, a) && ia < ib);
  }
  /// The loops' fast test, one comparison: false only when a value v cannot
  /// come before an entry of value w whatever their indices (v after w). True
  /// for NaNs on either side, which `insert` then decides.
  static UFUNC_HD bool may_enter(const T& v, const T& w) {
    if constexpr (Largest)
      return !(key(v) < key(w));
    else
      return !(key(w) < key(v));
  }
  /// The value of an empty entry: the last value of the order (its index, the
  /// largest of the index type, puts it after every element of that value).
  static UFUNC_HD T last() {
    if constexpr (element_traits<T>::is_floating)
      return Largest ? element_traits<T>::lowest() : cuda::std::numeric_limits<T>::quiet_NaN();
    else
      return Largest ? cuda::std::numeric_limits<T>::lowest() : cuda::std::numeric_limits<T>::max();
  }
};

/// The K first entries seen so far, in the order: v[0], i[0] first. Fully
/// unrolled loops over compile-time positions, so that on the GPU the list
/// lives in registers. Idx: the kernels' chunk-relative 32-bit indices, or
/// index_t.
template <class T, int K, class Idx>
struct k_list {
  static_assert(K >= 1, "a list of at least one entry");
  /// The index of an empty entry: after every element's.
  static constexpr Idx empty = cuda::std::numeric_limits<Idx>::max();
  T v[K];
  Idx i[K];

  template <class Order>
  UFUNC_HD void clear() {
#if defined(__CUDACC__)
#  pragma unroll
#endif
    for (int s = 0; s < K; ++s) {
      v[s] = Order::last();
      i[s] = empty;
    }
  }
  /// The value of the last entry: an element that is not `may_enter` it stays out.
  UFUNC_HD const T& worst() const { return v[K - 1]; }

  /// Puts (x, ix) in its place when it comes before the last entry (which
  /// drops out); returns whether it did. The GPU pass takes insert_unrolled
  /// (the list stays in registers), the host insert_shift (the same list after).
  template <class Order>
  UFUNC_HD bool insert(const T& x, Idx ix) {
#if UFUNC_DEVICE_PASS
    return insert_unrolled<Order>(x, ix);
#else
    return insert_shift<Order>(x, ix);
#endif
  }
  /// Branch-free over the positions, every index a constant: with up[s] = (x
  /// before entry s - 1), which holds for s above x's place and not below (the
  /// list is sorted), entry s becomes entry s - 1 where up[s], x where
  /// up[s + 1] alone, and stays otherwise.
  template <class Order>
  UFUNC_HD bool insert_unrolled(const T& x, Idx ix) {
    bool up_next = Order::before(x, ix, v[K - 1], i[K - 1]);  // up[K]
    if (!up_next) return false;
#if defined(__CUDACC__)
#  pragma unroll
#endif
    for (int s = K - 1; s >= 1; --s) {
      const bool up = Order::before(x, ix, v[s - 1], i[s - 1]);
      v[s] = up ? v[s - 1] : (up_next ? x : v[s]);
      i[s] = up ? i[s - 1] : (up_next ? ix : i[s]);
      up_next = up;
    }
    if (up_next) {
      v[0] = x;
      i[0] = ix;
    }
    return true;
  }
  /// The entries after x's place moved down one by one (half the list on
  /// average, not all of it).
  template <class Order>
  UFUNC_HD bool insert_shift(const T& x, Idx ix) {
    if (!Order::before(x, ix, v[K - 1], i[K - 1])) return false;
    int p = K - 1;
    for (; p > 0 && Order::before(x, ix, v[p - 1], i[p - 1]); --p) {
      v[p] = v[p - 1];
      i[p] = i[p - 1];
    }
    v[p] = x;
    i[p] = ix;
    return true;
  }
};

/// A result value as topk stores it: every NaN the type's quiet NaN.
template <class T>
UFUNC_HD T select_value_out(const T& v) {
  if constexpr (element_traits<T>::is_floating) {
    if (is_nan(v)) return cuda::std::numeric_limits<T>::quiet_NaN();
  }
  return v;
}

/// Writes a chunk's list: into the results (partial = false: rows of K at
/// out_v / out_i, values only when out_v is set; every entry is full then) or
/// into the partial lists of a split row (empty entries keep index_t's
/// largest index, so that merging still puts them last). Entry s of the list
/// has index j_begin + i[s].
template <class T, int K, class Idx>
UFUNC_HD void store_k_list(const k_list<T, K, Idx>& l, T* out_v, index_t* out_i, index_t at, index_t j_begin,
                           bool partial) {
#if defined(__CUDACC__)
#  pragma unroll
#endif
  for (int s = 0; s < K; ++s) {
    const bool empty = l.i[s] == k_list<T, K, Idx>::empty;
    out_i[at + s] = empty ? cuda::std::numeric_limits<index_t>::max() : j_begin + static_cast<index_t>(l.i[s]);
    if (out_v) out_v[at + s] = partial ? l.v[s] : select_value_out(l.v[s]);
  }
}

}  // namespace ufunc::detail
