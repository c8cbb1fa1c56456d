// Sorting along one axis (ufunc::sort, argsort, topk, unique): the geometry
// here, the engine in sort_backend<Target> (host/sort.hpp: std::stable_sort per
// row on the pool's threads; cuda/sort.hpp: CUB's radix sorts).
//
// Every operation runs the same three steps: (1) a key-prep copy of x into a
// contiguous rows x L buffer with the sorted axis last, mapping every NaN to
// one canonical quiet NaN (so NaNs sort last, after +inf, and keep their order:
// a radix sort orders NaNs by their bits, -NaN first); (2) the backend sorts
// each row stably (keys, and the row positions 0..L-1 as a payload when indices
// are wanted; topk with a small k on a backend that has a selection, the
// host's, selects instead); (3) a copy back into the result's layout (none when
// the axis is already the last one). -0.0 and +0.0 compare equal and keep their
// order (both backends: CUB's radix sort treats them as equal keys). For
// floating types the key-prep copy is made (and the backend may overwrite it,
// as cuda/sort.hpp does over several rows) except where the backend makes its
// own (float_rows_prep: CUDA's keys-only sorts of several contiguous rows, whose
// copy also turns NaNs into +inf and counts them).
#pragma once

#include <array>
#include <string>
#include <type_traits>
#include <vector>

#include "../array.hpp"
#include "../array_view.hpp"
#include "../config.hpp"
#include "../error.hpp"
#include "../shape.hpp"
#include "../stream.hpp"
#include "arg_traits.hpp"
#include "element.hpp"
#include "elementwise.hpp"
#include "host/sort.hpp"
#include "layout.hpp"
#include "memory.hpp"
#include "parallel_for.hpp"
#include "reduce_source.hpp"
#include "scan.hpp"
#include "sort_bits.hpp"

#include UFUNC_CUDA_BACKEND("cuda/sort.hpp")

namespace ufunc::detail {

/// The public sorts' argument: an array or a view of bool, integers or floats.
template <class X>
using sort_value_t = typename arg_traits<bare_t<X>>::value_type;
template <class X>
using sort_target_t = typename arg_traits<bare_t<X>>::target_type;
template <class X>
array_view<const sort_value_t<X>, sort_target_t<X>> sort_input(const X& x) {
  static_assert(arg_traits<bare_t<X>>::is_array, "ufunc sorts: x is an array or an array view");
  static_assert(is_numeric_v<sort_value_t<X>>,
                "ufunc sorts: elements are bool, integers or floating point (16-bit floats included)");
  return array_view<const sort_value_t<X>, sort_target_t<X>>(x.view());
}

/// The key of element v: v, with every NaN replaced by T's canonical quiet NaN.
template <class T>
struct sort_key_prep {
  UFUNC_HD T operator()(const T& v) const {
    if constexpr (element_traits<T>::is_floating) {
      if (is_nan(v)) return cuda::std::numeric_limits<T>::quiet_NaN();
    }
    return v;
  }
};

/// Equal in NumPy's sort order: a == b, or both NaN (np.unique's equal_nan).
template <class T>
UFUNC_HD bool sort_equal(const T& a, const T& b) {
  if constexpr (is_half_v<T>) return sort_equal(static_cast<float>(a), static_cast<float>(b));
  else return a == b || (is_nan(a) && is_nan(b));
}

/// The axis `a` of an ndim-d array, counted from the end when negative; throws
/// shape_error naming the operation, the axis and the shape when out of range
/// (NumPy's AxisError; a 0-d array has no axis, as in NumPy's np.sort).
inline int sort_axis(const char* name, int a, const shape& s) {
  const int nd = s.size();
  if (a < -nd || a >= nd)
    throw shape_error(std::string(name) + ": axis " + std::to_string(a) + " is out of range for an array of " +
                      std::to_string(nd) + (nd == 1 ? " dimension" : " dimensions") + " (shape " + s.str() + ")");
  return a < 0 ? a + nd : a;
}

/// The permutation that moves `axis` last (the others keep their order).
inline std::vector<int> axis_last(int nd, int axis) {
  std::vector<int> p;
  for (int d = 0; d < nd; ++d)
    if (d != axis) p.push_back(d);
  p.push_back(axis);
  return p;
}

template <class T, class Target>
operand_layout view_layout(const array_view<T, Target>& v) {
  operand_layout l;
  l.is_array = true;
  l.data = v.data();
  l.elem_size = sizeof(T);
  l.shp = v.shape();
  for (int d = 0; d < v.ndim(); ++d) l.strides[static_cast<std::size_t>(d)] = v.stride(d);
  return l;
}

/// dst (any layout) = src elementwise through f (src has dst's shape).
template <class Target, class T, class F>
void copy_through(const F& f, const array_view<T, Target>& dst, const array_view<const T, Target>& src, stream_ref s) {
  run_elementwise<Target, T>(f, dst.shape(), cuda::std::make_tuple(dst.data()), cuda::std::make_tuple(in_ptr<T>{src.data()}),
                             std::array<operand_layout, 2>{view_layout(dst), view_layout(src)}, s);
}

/// x's rows along one axis, sorted: the keys (rows x L, row-major, the axis
/// last: x's shape with the axis moved last) and each element's position along
/// the axis (index_t, the same shape), each only when asked for (else empty). Ascending (NaNs last)
/// or descending (NaNs first); stable either way. `moved` is x's shape with the
/// axis last; rows = x.size() / L.
template <class T, class Target>
struct sorted_rows {
  array<T, Target> keys;
  array<index_t, Target> index;
  shape moved;
  index_t rows = 0, L = 0;
};

/// Step 1: x's keys, contiguous rows with the axis last and NaNs canonical
/// (`data` points at `prep`, or at x itself for integers and bool already
/// contiguous with the axis last).
template <class T, class Target>
struct row_keys {
  array<T, Target> prep;
  const T* data;
  shape moved;
  index_t rows, L;
};
/// `backend_prep`: the backend copies floating keys itself (its
/// run_float_rows), so contiguous rows are used in place. OrderBits: the
/// copy holds each key's order bits instead (sort_key_bits; bool and unsigned
/// keys, whose bits are their order, are used in place when contiguous).
template <bool OrderBits = false, class Target, class T>
row_keys<T, Target> keys_along(const array_view<const T, Target>& x, int axis, stream_ref s, bool backend_prep = false) {
  const array_view<const T, Target> mv = x.permuted(axis_last(x.ndim(), axis));
  const index_t n = x.size(), L = x.shape()[axis];
  const bool copy = n > 0 && ((element_traits<T>::is_floating && !backend_prep) || !mv.is_contiguous() ||
                              (OrderBits && std::is_signed_v<T>));
  row_keys<T, Target> k{array<T, Target>(copy ? mv.shape() : shape(0), s), mv.data(), mv.shape(), n > 0 ? n / L : 0, L};
  if (copy) {
    if constexpr (OrderBits) copy_through<Target>(sort_key_bits<T>{}, k.prep.view(), mv, s);
    else copy_through<Target>(sort_key_prep<T>{}, k.prep.view(), mv, s);
    k.data = k.prep.data();
  }
  return k;
}

/// Keys: the sorted keys wanted (r.keys; else left empty); Index: the
/// positions (r.index). Each combination compiles only the backend sort it
/// runs: keys only ascending (sort, unique) the backend's run_keys; positions
/// only ascending (argsort) on a backend that sorts order bits
/// (sorts_order_bits: CUDA) its run_bits, the bits made in the key copy;
/// everything else (topk, unique's indices) its run.
template <bool Keys, bool Index, bool Descending, class Target, class T>
sorted_rows<T, Target> sort_rows(const array_view<const T, Target>& x, int axis, stream_ref s) {
  static_assert(Keys || Index, "sort_rows: keys, positions or both");
  if constexpr (!Keys && !Descending && sort_backend<Target>::sorts_order_bits) {
    auto k = keys_along<true>(x, axis, s);
    sorted_rows<T, Target> r{array<T, Target>(shape(0), s), array<index_t, Target>(k.moved, s), k.moved, k.rows, k.L};
    if (x.size() > 0) sort_backend<Target>::run_bits(k.data, r.rows, r.L, r.index.data(), s);
    return r;
  } else if constexpr (!Index && !Descending) {
    // Floating keys over several rows: a backend with its own key copy (CUDA:
    // NaNs made +inf and counted in the same pass) takes contiguous rows as
    // they are, which saves the canonical copy's pass.
    const bool backend_prep =
        sort_backend<Target>::float_rows_prep && element_traits<T>::is_floating && x.size() > x.shape()[axis];
    auto k = keys_along(x, axis, s, backend_prep);
    sorted_rows<T, Target> r{array<T, Target>(k.moved, s), array<index_t, Target>(shape(0), s), k.moved, k.rows, k.L};
    if constexpr (sort_backend<Target>::float_rows_prep) {
      if (backend_prep && k.prep.size() == 0) {
        sort_backend<Target>::run_float_rows(k.data, r.rows, r.L, r.keys.data(), s);
        return r;
      }
    }
    if (x.size() > 0) sort_backend<Target>::run_keys(k.data, r.rows, r.L, r.keys.data(), s);
    return r;
  } else {
    auto k = keys_along(x, axis, s);
    sorted_rows<T, Target> r{array<T, Target>(Keys ? k.moved : shape(0), s),
                             array<index_t, Target>(Index ? k.moved : shape(0), s), k.moved, k.rows, k.L};
    if (x.size() > 0)
      sort_backend<Target>::run(k.data, r.rows, r.L, Keys ? r.keys.data() : nullptr, Index ? r.index.data() : nullptr,
                                Descending, s);
    return r;
  }
}

/// `rows` (contiguous, of x's shape with the axis moved last; any extent along
/// it) moved back into x's axis order: itself when the axis is the last, else a
/// new row-major array filled through a permuted view.
template <class Target, class T>
array<T, Target> axis_back(array<T, Target>&& rows, int nd, int axis, stream_ref s) {
  if (axis == nd - 1) return std::move(rows);
  const auto perm = axis_last(nd, axis);
  std::vector<int> inv(perm.size());
  for (std::size_t k = 0; k < perm.size(); ++k) inv[static_cast<std::size_t>(perm[k])] = static_cast<int>(k);
  const array_view<const T, Target> back = rows.view().permuted(inv);  // x's shape, strided
  array<T, Target> out(back.shape(), s);
  if (out.size() > 0) copy_through<Target>(cast_to<T>{}, out.view(), back, s);
  return out;
}

/// x sorted, or argsorted, along `axis` (already normalised).
template <class Target, class T>
array<T, Target> sort_values(const array_view<const T, Target>& x, int axis, stream_ref s) {
  auto r = sort_rows<true, false, false>(x, axis, s);
  return axis_back(std::move(r.keys), x.ndim(), axis, s);
}
template <class Target, class T>
array<index_t, Target> argsort_indices(const array_view<const T, Target>& x, int axis, stream_ref s) {
  auto r = sort_rows<false, true, false>(x, axis, s);
  return axis_back(std::move(r.index), x.ndim(), axis, s);
}

/// The first k of each sorted row (rows of L) into rows of k.
template <class T>
struct first_k {
  const T* src;
  T* dst;
  index_t L, k;
  UFUNC_HD void operator()(std::size_t i) const {
    const index_t r = static_cast<index_t>(i) / k, j = static_cast<index_t>(i) - r * k;
    dst[i] = src[r * L + j];
  }
};

template <class Target, class F>
void for_n(index_t n, const F& f, stream_ref s) {
  if (n > 0) run_parallel_for<Target, 1>(f, std::array<index_t, 3>{n, 1, 1}, n, checked_launch{}, s);
}

/// The k largest (or smallest) of each row along `axis`, sorted, with their indices.
template <class T, class Target>
struct topk_rows {
  array<T, Target> values;
  array<index_t, Target> indices;
};
template <class Target, class T>
topk_rows<T, Target> topk_along(const array_view<const T, Target>& x, index_t k, int axis, bool largest, stream_ref s) {
  shape ks = x.permuted(axis_last(x.ndim(), axis)).shape();
  ks[ks.size() - 1] = k;
  array<T, Target> v(ks, s);
  array<index_t, Target> i(ks, s);
  const index_t L = x.shape()[axis];
  bool done = v.size() == 0;
  // A small k where the backend selects (the host's partial sort, the GPU's
  // per-row register lists): no full sort. A backend that canonicalises NaN keys
  // itself (select_raw_keys) reads contiguous rows of x as they are.
  if (!done && sort_backend<Target>::template selects<T>(k, L, v.size() / k)) {
    const auto keys = keys_along(x, axis, s, sort_backend<Target>::select_raw_keys);
    sort_backend<Target>::select(keys.data, keys.rows, L, k, v.data(), i.data(), largest, s);
    done = true;
  }
  if (!done) {  // the first k of each fully sorted row
    auto r = largest ? sort_rows<true, true, true>(x, axis, s) : sort_rows<true, true, false>(x, axis, s);
    for_n<Target>(v.size(), first_k<T>{r.keys.data(), v.data(), r.L, k}, s);
    for_n<Target>(i.size(), first_k<index_t>{r.index.data(), i.data(), r.L, k}, s);
  }
  return {axis_back(std::move(v), x.ndim(), axis, s), axis_back(std::move(i), x.ndim(), axis, s)};
}

/// unique: flags[i] = 1 where sorted element i starts a run of equal keys.
template <class T>
struct run_starts {
  const T* keys;
  index_t* flags;
  UFUNC_HD void operator()(std::size_t i) const {
    flags[i] = (i == 0 || !sort_equal(keys[i], keys[i - 1])) ? 1 : 0;
  }
};
/// unique: run r's start (first[r]), from the inclusive scan of the flags (id = scan - 1).
struct run_first {
  const index_t* flags;
  const index_t* scan;
  index_t* first;
  index_t n, runs;
  UFUNC_HD void operator()(std::size_t i) const {
    if (flags[i]) first[scan[i] - 1] = static_cast<index_t>(i);
    if (i == 0) first[runs] = n;
  }
};
/// unique: values, counts and first indices of each run (null pointers: not wanted).
template <class T>
struct run_outputs {
  const T* keys;
  const index_t* first;
  const index_t* perm;
  T* values;
  index_t* counts;
  index_t* indices;
  UFUNC_HD void operator()(std::size_t r) const {
    const index_t b = first[r];
    values[r] = keys[b];
    if (counts) counts[r] = first[r + 1] - b;
    if (indices) indices[r] = perm[b];
  }
};
/// unique: inverse[perm[i]] = the run of sorted element i.
struct run_inverse {
  const index_t* perm;
  const index_t* scan;
  index_t* inverse;
  UFUNC_HD void operator()(std::size_t i) const { inverse[perm[i]] = scan[i] - 1; }
};

/// np.unique_all of x (flattened): values, the first index of each, the
/// inverse (x's shape) and the counts; each part only when wanted (empty
/// arrays otherwise). Reads the number of values back to the host (synchronises).
template <class T, class Target>
struct unique_parts {
  array<T, Target> values;
  array<index_t, Target> indices, inverse, counts;
};
template <class Target, class T>
unique_parts<T, Target> unique_along(const array_view<const T, Target>& x, bool want_indices, bool want_inverse,
                                     bool want_counts, stream_ref s) {
  const index_t n = x.size();
  const bool want_perm = want_indices || want_inverse;
  // The flattened view: contiguous x as 1-D; otherwise a row-major copy first.
  array<T, Target> flat(x.is_contiguous() ? shape(0) : x.shape(), s);
  if (flat.size() > 0) copy_through<Target>(cast_to<T>{}, flat.view(), x, s);
  const array_view<const T, Target> x1(x.is_contiguous() ? x.data() : flat.data(), shape(n));
  auto r = want_perm ? sort_rows<true, true, false>(x1, 0, s) : sort_rows<true, false, false>(x1, 0, s);
  unique_parts<T, Target> u{array<T, Target>(shape(0), s), array<index_t, Target>(shape(0), s),
                            array<index_t, Target>(want_inverse ? x.shape() : shape(0), s),
                            array<index_t, Target>(shape(0), s)};
  if (n == 0) return u;
  array<index_t, Target> flags(shape(n), s), scan(shape(n), s);
  for_n<Target>(n, run_starts<T>{r.keys.data(), flags.data()}, s);
  scan_axis<Target, index_t, plus, index_t>(acc_op<index_t, plus>{}, contiguous_layout(flags.data(), sizeof(index_t), shape(n)),
                                            0, scan.data(), s);
  index_t runs = 0;
  memory<Target>::copy_to_host(&runs, scan.data() + (n - 1), sizeof(index_t), s);  // waits for the stream
  array<index_t, Target> first(shape(runs + 1), s);
  for_n<Target>(n, run_first{flags.data(), scan.data(), first.data(), n, runs}, s);
  u.values = array<T, Target>(shape(runs), s);
  if (want_indices) u.indices = array<index_t, Target>(shape(runs), s);
  if (want_counts) u.counts = array<index_t, Target>(shape(runs), s);
  for_n<Target>(runs,
                run_outputs<T>{r.keys.data(), first.data(), want_indices ? r.index.data() : nullptr, u.values.data(),
                               want_counts ? u.counts.data() : nullptr, want_indices ? u.indices.data() : nullptr},
                s);
  if (want_inverse) for_n<Target>(n, run_inverse{r.index.data(), scan.data(), u.inverse.data()}, s);
  return u;
}

}  // namespace ufunc::detail
