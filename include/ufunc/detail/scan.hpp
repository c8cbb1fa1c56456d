// Inclusive scan along one axis (the ufunc method `accumulate`): the geometry
// (segments along the axis) here, the engine in scan_backend<Target>
// (host/scan.hpp: a loop per segment; cuda/scan.hpp: CUB's device scan).
#pragma once

#include <array>

#include "../config.hpp"
#include "../stream.hpp"
#include "host/scan.hpp"
#include "reduce_geometry.hpp"
#include "reduce_source.hpp"

#include UFUNC_CUDA_BACKEND("cuda/scan.hpp")

namespace ufunc::detail {

/// Segment-major element order: element i is position i % L of segment i / L.
/// Input 0 of the plans is the source, input 1 the (contiguous) result.
template <class Acc, class T>
struct scan_geometry {
  const T* x;
  nd_plan<2, std::uint64_t> kept;
  index_t L, step_x, step_out;
  UFUNC_HD void split(index_t i, index_t* off, index_t& r) const {
    const index_t o = i / L;
    r = i - o * L;
    kept.offsets_unrolled(static_cast<std::uint64_t>(o), off);  // (inside CUB's iterators)
  }
  UFUNC_HD Acc value(index_t i) const {
    index_t off[2], r;
    split(i, off, r);
    return static_cast<Acc>(x[off[0] + r * step_x]);
  }
  UFUNC_HD index_t out_offset(index_t i) const {
    index_t off[2], r;
    split(i, off, r);
    return off[1] + r * step_out;
  }
};

/// out (contiguous, the shape of x) = inclusive scan of x along `axis` with op.
template <class Target, class Acc, class Op, class T>
void scan_axis(const acc_op<Acc, Op>& op, const operand_layout& x, int axis, Acc* out, stream_ref s) {
  const index_t n = x.shp.count();
  if (n == 0) return;
  operand_layout o;
  o.is_array = true;
  o.data = out;
  o.elem_size = sizeof(Acc);
  o.shp = x.shp;
  const auto st = contiguous_strides(x.shp);
  for (int d = 0; d < x.shp.size(); ++d) o.strides[static_cast<std::size_t>(d)] = st[static_cast<std::size_t>(d)];
  std::array<bool, max_rank> mask{};
  mask[static_cast<std::size_t>(axis)] = true;
  const auto g = make_geometry<2>(x.shp, mask, false, std::array<operand_layout, 2>{x, o});
  const scan_geometry<Acc, T> sg{static_cast<const T*>(x.data), make_plan<2, std::uint64_t>(g.kept), g.R,
                                 g.red.ndim ? g.red.strides[0][0] : 0, g.red.ndim ? g.red.strides[1][0] : 0};
  scan_backend<Target>::run(op, sg, g.K, g.R, out, s);
}

}  // namespace ufunc::detail
