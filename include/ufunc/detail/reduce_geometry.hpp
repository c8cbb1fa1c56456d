// Reduction geometry (host-only, testable without nvcc): which axes a call
// reduces, and the split of the broadcast input shape into kept and reduced
// dims, each merged like an elementwise layout, with every input's strides.
#pragma once

#include <array>
#include <climits>
#include <cstdint>
#include <string>
#include <vector>

#include "../error.hpp"
#include "../shape.hpp"
#include "layout.hpp"

namespace ufunc::detail {

/// Which dims of `s` are reduced, from a list of axes (negative counts from the
/// end) or all of them. Throws shape_error for an axis out of range or repeated.
/// `single`: the axes came as one integer (ufunc::axis(k)); as NumPy's
/// reductions, axis 0 or -1 of a 0-d array is then accepted and reduces nothing
/// (a list, ufunc::axes{0}, is refused, as NumPy refuses axis=(0,)).
inline std::array<bool, max_rank> axis_mask(const shape& s, const std::vector<int>* axes, const char* name,
                                            bool single = false) {
  std::array<bool, max_rank> m{};
  if (!axes) {
    for (int d = 0; d < s.size(); ++d) m[static_cast<std::size_t>(d)] = true;
    return m;
  }
  if (single && s.size() == 0 && axes->size() == 1 && ((*axes)[0] == 0 || (*axes)[0] == -1)) return m;
  for (int a : *axes) {
    const int ax = a < 0 ? a + s.size() : a;
    if (ax < 0 || ax >= s.size())
      throw shape_error(std::string(name) + ": axis " + std::to_string(a) + " is out of range for shape " + s.str() +
                        " (" + std::to_string(s.size()) + " dims)");
    if (m[static_cast<std::size_t>(ax)])
      throw shape_error(std::string(name) + ": axis " + std::to_string(a) + " is given twice for shape " + s.str());
    m[static_cast<std::size_t>(ax)] = true;
  }
  return m;
}

/// The reduction's shape: K outputs of R elements each; kept and reduced dims,
/// each merged like an elementwise layout, with every input's strides.
template <std::size_t NIN>
struct reduce_geometry {
  shape result;  // with keepdims, reduced dims stay as size 1
  index_t K = 1, R = 1;
  merged_layout<static_cast<int>(NIN)> kept, red;
  /// The first array input's reduced elements are closer together in memory than
  /// its neighbouring outputs: reduce along rows (else along columns).
  bool rows_like = true;
};

template <std::size_t NIN>
reduce_geometry<NIN> make_geometry(const shape& full, const std::array<bool, max_rank>& mask, bool keepdims,
                                   const std::array<operand_layout, NIN>& ins) {
  constexpr int N = static_cast<int>(NIN);
  reduce_geometry<NIN> g;
  std::vector<index_t> kdims, rdims, res;
  std::array<operand_layout, NIN> kops{}, rops{};
  for (std::size_t k = 0; k < NIN; ++k) kops[k].is_array = rops[k].is_array = ins[k].is_array;
  for (int d = 0; d < full.size(); ++d) {
    const bool red = mask[static_cast<std::size_t>(d)];
    const std::size_t slot = red ? rdims.size() : kdims.size();
    for (std::size_t k = 0; k < NIN; ++k) {
      const auto& op = ins[k];
      index_t st = 0;
      if (op.is_array) {
        const int od = d - (full.size() - op.shp.size());  // right-aligned source dim
        if (od >= 0 && op.shp[od] != 1) st = op.strides[static_cast<std::size_t>(od)];
      }
      (red ? rops : kops)[k].strides[slot] = st;
    }
    (red ? rdims : kdims).push_back(full[d]);
    if (!red || keepdims) res.push_back(red ? 1 : full[d]);
  }
  const shape ks(kdims), rs(rdims);
  for (std::size_t k = 0; k < NIN; ++k) {
    kops[k].shp = ks;
    rops[k].shp = rs;
  }
  g.result = shape(res);
  g.K = ks.count();
  g.R = rs.count();
  g.kept = merge_layout<N>(ks, kops);
  g.red = merge_layout<N>(rs, rops);
  for (std::size_t k = 0; k < NIN; ++k)
    if (ins[k].is_array) {
      auto inner = [&](const merged_layout<N>& m) {
        if (m.ndim == 0) return INT64_MAX;
        const index_t s = m.strides[k][static_cast<std::size_t>(m.ndim - 1)];
        return s < 0 ? -s : s;
      };
      g.rows_like = inner(g.red) <= inner(g.kept);
      break;
    }
  return g;
}

}  // namespace ufunc::detail
