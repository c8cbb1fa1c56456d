// The ufunc method reduceat (NumPy's ufunc.reduceat): reductions over the
// slices x[indices[i]:indices[i+1]] along one axis. Here the checks and the
// geometry (host-only: which elements each output reduces, where it goes); the
// engine in reduceat_backend<Target> (host/reduceat.hpp: a pairwise loop per
// output on the host threads; cuda/reduceat.hpp: CUB's segmented reduction).
#pragma once

#include <array>
#include <cstdint>
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
#include "call.hpp"  // layout_of, bare_t
#include "host/reduceat.hpp"
#include "reduce.hpp"  // default_acc_t
#include "reduce_geometry.hpp"
#include "reduce_source.hpp"

#include UFUNC_CUDA_BACKEND("cuda/reduceat.hpp")

namespace ufunc::detail {

/// Output s = k * m + i (kept row k of x, segment i of the m indices) reduces
/// x's elements begin(i) .. end(i) - 1 along the axis of row k: NumPy's rule,
/// [indices[i], indices[i+1]) when indices[i] < indices[i+1], else the one
/// element indices[i]; the last segment runs to the axis' end. Every index lies
/// in [0, n) (checked before), so no segment is empty. Input 0 of the kept plan
/// is x, input 1 the result; along the axis they step by step_x and step_out.
template <class T, class Ix>
struct reduceat_geometry {
  const T* x;
  const Ix* idx;
  index_t idx_step;
  nd_plan<2, std::uint64_t> kept;
  index_t n, m, step_x, step_out;
  UFUNC_HD index_t begin(index_t i) const { return static_cast<index_t>(idx[i * idx_step]); }
  UFUNC_HD index_t end(index_t i) const {
    const index_t b = begin(i);
    if (i + 1 == m) return n;
    const index_t next = begin(i + 1);
    return b < next ? next : b + 1;
  }
  /// Offsets of kept row k in x (off[0]) and in the result (off[1]).
  UFUNC_HD void row(index_t k, index_t* off) const { kept.offsets_unrolled(static_cast<std::uint64_t>(k), off); }  // (inside CUB's iterators)
};

/// f.reduceat(x, indices, axis(ax)) (vectorize.hpp): checks (shape_error for a
/// 0-d x, an axis out of range, indices not 1-D or an index outside [0, n)),
/// then a new array of x's shape with the axis' extent replaced by the number
/// of indices, holding f.reduce's accumulator type. Nothing is written before
/// every check has passed.
template <class Target, class F, class X, class I>
auto reduceat_call(const F& f, const char* name, const X& x, const I& indices, int ax, stream_ref s) {
  using B = arg_traits<bare_t<X>>;
  using BI = arg_traits<bare_t<I>>;
  static_assert(B::is_array && std::is_same_v<typename B::target_type, Target>,
                "f.reduceat: x is an array or view in the ufunc's target memory");
  static_assert(BI::is_array && std::is_same_v<typename BI::target_type, Target>,
                "f.reduceat: indices are a 1-D array or view in the ufunc's target memory");
  using T = typename B::value_type;
  using Ix = std::remove_const_t<typename BI::value_type>;
  static_assert(std::is_integral_v<Ix> && !std::is_same_v<Ix, bool>, "f.reduceat: indices are integers");
  using Acc = default_acc_t<F, T>;  // as f.reduce's
  const std::string what = std::string(name) + ".reduceat";
  const auto l = layout_of(x);
  if (l.shp.size() == 0) throw shape_error(what + ": a 0-d array has no axis");
  const std::vector<int> one{ax};
  const auto mask = axis_mask(l.shp, &one, what.c_str());
  int a = 0;
  while (!mask[static_cast<std::size_t>(a)]) ++a;
  const array_view<const Ix, Target> iv(indices.view());
  if (iv.ndim() != 1) throw shape_error(what + ": indices must be 1-D, not of shape " + iv.shape().str());
  const index_t n = l.shp[a], m = iv.shape()[0];
  const index_t bad = reduceat_backend<Target>::first_bad(iv.data(), iv.stride(0), m, n, s);
  if (bad < m) {
    Ix v{};
    memory<Target>::copy_to_host(&v, iv.data() + bad * iv.stride(0), sizeof v, s);
    throw shape_error(what + ": index " + std::to_string(static_cast<long long>(v)) + " (position " +
                      std::to_string(bad) + ") is out of bounds for axis " + std::to_string(a) + " of size " +
                      std::to_string(n) + " in shape " + l.shp.str());
  }
  std::vector<index_t> dims;
  for (int d = 0; d < l.shp.size(); ++d) dims.push_back(d == a ? m : l.shp[d]);
  array<Acc, Target> r{shape(dims), s};
  if (r.size() == 0) return r;
  // The result's layout over x's shape: its strides, the axis' used as step_out.
  operand_layout o = contiguous_layout(r.data(), sizeof(Acc), r.shape());
  o.shp = l.shp;
  std::array<bool, max_rank> red{};
  red[static_cast<std::size_t>(a)] = true;
  const auto g = make_geometry<2>(l.shp, red, false, std::array<operand_layout, 2>{l, o});
  const reduceat_geometry<T, Ix> rg{static_cast<const T*>(l.data), iv.data(), iv.stride(0),
                                    make_plan<2, std::uint64_t>(g.kept), n, m,
                                    l.strides[static_cast<std::size_t>(a)], o.strides[static_cast<std::size_t>(a)]};
  // x contiguous with the axis last: kept row k starts at k n in x and at k m in
  // the result, so a backend may read and write plain pointers.
  const bool rows = a == l.shp.size() - 1 && (g.K == 1 || (g.kept.ndim == 1 && g.kept.strides[0][0] == n &&
                                                            g.kept.strides[1][0] == m)) &&
                    (n == 1 || rg.step_x == 1);
  reduceat_backend<Target>::run(acc_op<Acc, F>{f}, rg, g.K, rows, r.data(), s);
  return r;
}

}  // namespace ufunc::detail
