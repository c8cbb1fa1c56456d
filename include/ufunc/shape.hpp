// ufunc::shape and NumPy broadcasting. Host-only logic (apart from the trivial
// accessors that views use inside kernels); testable without nvcc.
#pragma once

#include <algorithm>
#include <cstdint>
#include <initializer_list>
#include <string>
#include <type_traits>
#include <vector>

#include "config.hpp"
#include "error.hpp"

namespace ufunc {

/// The dimensions of an N-d array, rank 0 to 8. Built from a braced list
/// (`shape{4, 3}`, `shape{}` is rank 0) or from a range of integers. `size()` is
/// the rank, `count()` the number of elements. A rank above 8 or a negative
/// dimension throws `shape_error`.
class shape {
 public:
  static constexpr int max_rank = 8;

  UFUNC_HD shape() noexcept {}

  template <class... I,
            std::enable_if_t<(sizeof...(I) > 0) && (std::is_integral_v<I> && ...), int> = 0>
  shape(I... dims) {  // NOLINT: implicit so that `{4, 3}` converts
    const index_t d[] = {static_cast<index_t>(dims)...};
    assign(d, d + sizeof...(I));
  }

  template <class Int, std::enable_if_t<std::is_integral_v<Int>, int> = 0>
  explicit shape(const std::vector<Int>& dims) {
    std::vector<index_t> d(dims.begin(), dims.end());
    assign(d.data(), d.data() + d.size());
  }

  template <class It, std::enable_if_t<!std::is_integral_v<It>, int> = 0>
  shape(It first, It last) {
    if constexpr (std::is_same_v<std::decay_t<It>, const index_t*> || std::is_same_v<std::decay_t<It>, index_t*>) {
      assign(first, last);  // no copy: this runs on every ufunc call
    } else {
      std::vector<index_t> d(first, last);
      assign(d.data(), d.data() + d.size());
    }
  }

  /// Rank (number of dimensions).
  UFUNC_HD int size() const noexcept { return rank_; }
  UFUNC_HD int ndim() const noexcept { return rank_; }
  UFUNC_HD index_t operator[](int i) const noexcept { return dims_[i]; }
  UFUNC_HD index_t& operator[](int i) noexcept { return dims_[i]; }
  UFUNC_HD const index_t* begin() const noexcept { return dims_; }
  UFUNC_HD const index_t* end() const noexcept { return dims_ + rank_; }

  /// Number of elements (1 for rank 0).
  UFUNC_HD index_t count() const noexcept {
    index_t n = 1;
    for (int i = 0; i < rank_; ++i) n *= dims_[i];
    return n;
  }

  friend bool operator==(const shape& a, const shape& b) noexcept {
    return a.rank_ == b.rank_ && std::equal(a.begin(), a.end(), b.begin());
  }
  friend bool operator!=(const shape& a, const shape& b) noexcept { return !(a == b); }

  /// NumPy's notation: `(4,3)`, `(2,)`, `()`.
  std::string str() const {
    std::string s = "(";
    for (int i = 0; i < rank_; ++i) {
      if (i) s += ",";
      s += std::to_string(dims_[i]);
    }
    if (rank_ == 1) s += ",";
    return s + ")";
  }

 private:
  void assign(const index_t* first, const index_t* last) {
    const auto n = last - first;
    if (n > max_rank)
      throw shape_error("shape: rank " + std::to_string(n) + " exceeds the maximum of " +
                        std::to_string(max_rank));
    bool zero = false;
    for (auto p = first; p != last; ++p) {
      if (*p < 0) throw shape_error("shape: negative dimension " + std::to_string(*p));
      zero = zero || *p == 0;
    }
    rank_ = static_cast<int>(n);
    std::copy(first, last, dims_);
    if (!zero) {  // the element count must be representable (index_t)
      index_t c = 1;
      for (int i = 0; i < rank_; ++i) {
        if (c > INT64_MAX / dims_[i]) throw shape_error("shape: element count of " + str() + " overflows 64 bits");
        c *= dims_[i];
      }
    }
  }

  index_t dims_[max_rank] = {};
  int rank_ = 0;
};

namespace detail {
/// Broadcasts `s` into `acc` in place (NumPy's rules); false when they clash,
/// shape_error when the result's element count overflows. Allocation-free: this
/// runs on every ufunc call.
inline bool broadcast_into(shape& acc, const shape& s) {
  const int rank = std::max(acc.size(), s.size());
  index_t out[shape::max_rank];
  for (int i = 0; i < rank; ++i) {  // i counts from the right
    const index_t a = i < acc.size() ? acc[acc.size() - 1 - i] : 1;
    const index_t d = i < s.size() ? s[s.size() - 1 - i] : 1;
    if (a == d || d == 1) out[rank - 1 - i] = a;        // equal, or s stretches
    else if (a == 1) out[rank - 1 - i] = d;             // acc stretches (to 0 too)
    else return false;
  }
  acc = shape(out, out + rank);
  return true;
}
}  // namespace detail

/// Broadcasts shapes by NumPy's rules: align from the right; equal dims stay; a
/// dim of 1 stretches to the other; a missing leading dim counts as 1. Throws
/// `shape_error` naming the operation and every shape when they do not broadcast.
inline shape broadcast_shapes(const std::vector<shape>& shapes, const char* op = "broadcast") {
  shape acc;
  for (const auto& s : shapes) {
    if (detail::broadcast_into(acc, s)) continue;
    std::string msg = std::string(op) + ": cannot broadcast ";
    for (std::size_t k = 0; k < shapes.size(); ++k) msg += (k ? " with " : "") + shapes[k].str();
    throw shape_error(msg);
  }
  return acc;
}

/// True when `strides` (one per dim, in elements) lay `s` out row-major without
/// gaps; size-1 dims may have any stride.
inline bool is_row_major(const shape& s, const index_t* strides) noexcept {
  index_t expect = 1;
  for (int i = s.size() - 1; i >= 0; --i) {
    if (s[i] != 1 && strides[i] != expect) return false;
    expect *= s[i];
  }
  return true;
}

/// Row-major (C-order) element strides of a shape.
inline std::vector<index_t> contiguous_strides(const shape& s) {
  std::vector<index_t> st(static_cast<std::size_t>(s.size()));
  index_t acc = 1;
  for (int i = s.size() - 1; i >= 0; --i) {
    st[static_cast<std::size_t>(i)] = acc;
    acc *= std::max<index_t>(s[i], 1);
  }
  return st;
}

}  // namespace ufunc
