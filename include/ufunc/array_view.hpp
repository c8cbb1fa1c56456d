// ufunc::array_view: a non-owning, strided window on memory someone else owns.
#pragma once

#include <cstdio>
#include <numeric>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "config.hpp"
#include "error.hpp"
#include "shape.hpp"
#include "detail/view_errors.hpp"  // its pieces (detail::)

// With UFUNC_DEBUG defined, every element access through a view (`v[i]`,
// `v(i, j, ...)`) is bounds-checked; the accessors then may throw on the host and
// so are not noexcept. Define it for a whole program (all of its translation
// units), never for some only.
#if defined(UFUNC_DEBUG)
#  define UFUNC_DETAIL_ACCESS_NOEXCEPT
#else
#  define UFUNC_DETAIL_ACCESS_NOEXCEPT noexcept
#endif

namespace ufunc {

/// A non-owning N-d view: pointer, shape and element strides (which may be zero or
/// negative). It wraps memory owned elsewhere (an `ufunc::array`, a raw device
/// pointer, a `thrust::device_vector` through `make_view`), and every operation
/// that takes an array takes a view, so non-contiguous inputs (transposed, sliced,
/// broadcast) are used in place without copies. Views are trivially copyable and
/// can be captured by value in kernels; `v[i]` (row-major element i) and
/// `v(i, j, ...)` index them on host and device. The caller keeps the memory alive
/// and ordered with respect to the streams that use it. With `UFUNC_DEBUG`
/// defined, every such access is bounds-checked (index against extent, and the
/// number of indices against the rank): an out-of-range access prints the index
/// and extent and traps on the device, and throws `std::out_of_range` on the host.
template <class T, class Target = target::device>
class array_view {
 public:
  using element_type = T;
  using value_type = std::remove_cv_t<T>;
  using target_type = Target;

  UFUNC_HD array_view() noexcept {}

  /// A contiguous (row-major) view of `s.count()` elements at `data`. A null
  /// `data` with a non-empty shape throws value_error.
  array_view(T* data, const ufunc::shape& s) : data_(data), shape_(s) {
    require_data();
    const auto st = contiguous_strides(s);
    for (int i = 0; i < s.size(); ++i) strides_[i] = st[static_cast<std::size_t>(i)];
  }

  /// A strided view; `strides` are in elements, one per dimension.
  /// `strides` whose offsets overflow index_t (the sum over dims of
  /// |stride| * (extent - 1) above INT64_MAX, for a non-empty shape) throw
  /// shape_error, so that no element offset computed through the view overflows.
  array_view(T* data, const ufunc::shape& s, const std::vector<index_t>& strides) : data_(data), shape_(s) {
    require_data();
    if (static_cast<int>(strides.size()) != s.size())
      throw shape_error("array_view: " + std::to_string(strides.size()) + " strides given for shape " + s.str());
    for (int i = 0; i < s.size(); ++i) strides_[i] = strides[static_cast<std::size_t>(i)];
    require_offsets_fit();
  }

  /// A view of non-const elements converts to a view of const ones.
  template <class U, std::enable_if_t<std::is_same_v<const U, T>, int> = 0>
  UFUNC_HD array_view(const array_view<U, Target>& o) noexcept : data_(o.data()), shape_(o.shape()) {
    for (int i = 0; i < shape_.size(); ++i) strides_[i] = o.stride(i);
  }

  UFUNC_HD T* data() const noexcept { return data_; }
  UFUNC_HD const ufunc::shape& shape() const noexcept { return shape_; }
  /// Element stride of dimension `i`.
  UFUNC_HD index_t stride(int i) const noexcept { return strides_[i]; }
  std::vector<index_t> strides() const { return {strides_, strides_ + shape_.size()}; }
  /// Number of elements.
  UFUNC_HD index_t size() const noexcept { return shape_.count(); }
  UFUNC_HD int ndim() const noexcept { return shape_.size(); }
  UFUNC_HD array_view view() const noexcept { return *this; }

  /// Element `i` (0 <= i < size()) in row-major order of the view's logical shape.
  UFUNC_HD T& operator[](index_t i) const UFUNC_DETAIL_ACCESS_NOEXCEPT {
#if defined(UFUNC_DEBUG)
    if (i < 0 || i >= size()) detail::view_index_error(i, size(), -1);
#endif
    index_t off = 0;
    for (int d = shape_.size() - 1; d > 0; --d) {
      const index_t n = shape_[d];
      off += (i % n) * strides_[d];
      i /= n;
    }
    // What is left is the index along dimension 0 (no division needed: a 1-D view
    // indexes without any).
    if (shape_.size() > 0) off += i * strides_[0];
    return data_[off];
  }

  /// Element at a multi-index, one index per dimension.
  template <class... I, std::enable_if_t<(std::is_integral_v<I> && ...), int> = 0>
  UFUNC_HD T& operator()(I... idx) const UFUNC_DETAIL_ACCESS_NOEXCEPT {
    const index_t ii[] = {0, static_cast<index_t>(idx)...};
#if defined(UFUNC_DEBUG)
    if (static_cast<int>(sizeof...(I)) != shape_.size()) detail::view_rank_error(static_cast<int>(sizeof...(I)), shape_.size());
    for (int d = 0; d < static_cast<int>(sizeof...(I)); ++d)
      if (ii[d + 1] < 0 || ii[d + 1] >= shape_[d]) detail::view_index_error(ii[d + 1], shape_[d], d);
#endif
    index_t off = 0;
    for (int d = 0; d < static_cast<int>(sizeof...(I)); ++d) off += ii[d + 1] * strides_[d];
    return data_[off];
  }

  /// The same shape and strides at data() + `elements` (another block of one
  /// layout: gufunc.hpp moves a core view along its loop with it). Unchecked:
  /// the caller keeps the result inside the memory.
  UFUNC_HD array_view shifted(index_t elements) const noexcept {
    array_view v = *this;
    v.data_ += elements;
    return v;
  }

  /// The same shape and strides at `data` (another copy of one layout, e.g. a
  /// core block staged in GPU shared memory). Unchecked: the caller keeps every
  /// element inside the memory at `data`.
  UFUNC_HD array_view rebased(T* data) const noexcept {
    array_view v = *this;
    v.data_ = data;
    return v;
  }

  /// True when the elements are laid out row-major without gaps.
  bool is_contiguous() const noexcept { return is_row_major(shape_, strides_); }

  /// The view with its axes reversed (a matrix transpose for 2-D), no copy.
  array_view transposed() const {
    std::vector<int> axes(static_cast<std::size_t>(ndim()));
    std::iota(axes.rbegin(), axes.rend(), 0);
    return permuted(axes);
  }

  /// The view with axes reordered: result axis k is this view's axis `axes[k]`.
  array_view permuted(const std::vector<int>& axes) const {
    std::vector<bool> seen(static_cast<std::size_t>(ndim()), false);
    bool ok = static_cast<int>(axes.size()) == ndim();
    for (int a : axes) {
      if (!ok || a < 0 || a >= ndim() || seen[static_cast<std::size_t>(a)]) { ok = false; break; }
      seen[static_cast<std::size_t>(a)] = true;
    }
    if (!ok) {
      std::string s;
      for (std::size_t i = 0; i < axes.size(); ++i) s += (i ? "," : "") + std::to_string(axes[i]);
      throw shape_error("array_view::permuted: axes (" + s + ") are not a permutation for shape " + shape_.str());
    }
    std::vector<index_t> dims, st;
    for (int a : axes) {
      dims.push_back(shape_[a]);
      st.push_back(strides_[a]);
    }
    return array_view(data_, ufunc::shape(dims), st);
  }

  /// Python-style slice `[start:stop:step]` along `axis`, exactly as Python
  /// slices a sequence of that length (negative start/stop count from the end;
  /// out-of-range values clamp, so any start/stop/step gives a valid, possibly
  /// empty view; a negative step walks backwards). Any index_t values are
  /// accepted; step 0 throws shape_error. No copy.
  array_view sliced(int axis, index_t start, index_t stop, index_t step = 1) const {
    if (axis < 0) axis += ndim();
    if (axis < 0 || axis >= ndim())
      throw shape_error("array_view::sliced: axis " + std::to_string(axis) + " out of range for shape " +
                        shape_.str());
    if (step == 0) throw shape_error("array_view::sliced: step must not be zero");
    // CPython's PySlice_Unpack/AdjustIndices: -step must not overflow, and every
    // difference below stays within [-1, n], so nothing overflows for any input.
    if (step < -INT64_MAX) step = -INT64_MAX;
    const index_t n = shape_[axis];
    auto adjust = [&](index_t v) {
      if (v < 0) {
        v += n;  // v >= INT64_MIN and n >= 0: no overflow
        if (v < 0) v = step < 0 ? -1 : 0;
      } else if (v >= n) {
        v = step < 0 ? n - 1 : n;
      }
      return v;
    };
    start = adjust(start);
    stop = adjust(stop);
    index_t len = 0;
    if (step > 0 && start < stop) len = (stop - start - 1) / step + 1;
    if (step < 0 && stop < start) len = (start - stop - 1) / (-step) + 1;
    std::vector<index_t> dims(shape_.begin(), shape_.end()), st = strides();
    dims[static_cast<std::size_t>(axis)] = len;
    // With two or more elements |step| < n, so the product is bounded by the span
    // the constructor checked; with fewer the stride is never used (keep the old).
    st[static_cast<std::size_t>(axis)] = len > 1 ? strides_[axis] * step : strides_[axis];
    T* p = len > 0 ? data_ + start * strides_[axis] : data_;
    return array_view(p, ufunc::shape(dims), st);
  }

 private:
  void require_data() const {
    if (data_ == nullptr && shape_.count() > 0)
      throw value_error("array_view: a null pointer cannot hold the " + std::to_string(shape_.count()) +
                        " elements of shape " + shape_.str());
  }

  // Every element offset is a sum of stride_d * i_d with 0 <= i_d < extent_d; the
  // largest magnitude any partial sum reaches is sum |stride_d| * (extent_d - 1).
  void require_offsets_fit() const {
    if (shape_.count() == 0) return;  // no element is ever addressed
    const unsigned long long limit = static_cast<unsigned long long>(INT64_MAX);
    unsigned long long span = 0;  // <= limit throughout, so nothing below wraps
    for (int i = 0; i < shape_.size(); ++i) {
      if (shape_[i] <= 1) continue;
      const index_t st = strides_[i];
      const unsigned long long mag =
          st < 0 ? 0ull - static_cast<unsigned long long>(st) : static_cast<unsigned long long>(st);
      const unsigned long long reach = static_cast<unsigned long long>(shape_[i] - 1);
      if (mag > (limit - span) / reach) {
        std::string st_s;
        for (int k = 0; k < shape_.size(); ++k) st_s += (k ? "," : "") + std::to_string(strides_[k]);
        throw shape_error("array_view: strides (" + st_s + ") over shape " + shape_.str() +
                          " reach element offsets beyond 64 bits");
      }
      span += mag * reach;
    }
  }

  T* data_ = nullptr;
  ufunc::shape shape_;
  index_t strides_[shape::max_rank] = {};
};

/// Wraps memory owned elsewhere as a view: `make_view(ptr, {rows, cols})` for a
/// contiguous block, or with explicit element strides. `Target` says where the
/// memory lives (the build's device by default); nothing is checked or copied.
template <class Target = target::device, class T>
array_view<T, Target> make_view(T* data, const shape& s) {
  return array_view<T, Target>(data, s);
}
template <class Target = target::device, class T>
array_view<T, Target> make_view(T* data, const shape& s, const std::vector<index_t>& strides) {
  return array_view<T, Target>(data, s, strides);
}

}  // namespace ufunc
