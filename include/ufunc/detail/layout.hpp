// Host-only layout logic for elementwise operations: broadcasting each operand's
// strides to the result shape, merging dimensions so kernels do as little index
// math as possible, choosing the flat path, and overlap checks on outputs.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "../error.hpp"
#include "../shape.hpp"
#include "operand.hpp"

namespace ufunc::detail {

/// One operand as the planner sees it: an array (base pointer, shape, strides in
/// elements) or a broadcast value (no memory).
struct operand_layout {
  bool is_array = false;
  const void* data = nullptr;
  std::size_t elem_size = 0;
  shape shp;
  std::array<index_t, max_rank> strides{};
};

/// Dims and per-operand strides after broadcasting and merging; innermost last.
template <int NOPS>
struct merged_layout {
  int ndim = 0;
  std::array<index_t, max_rank> dims{};
  std::array<std::array<index_t, max_rank>, (NOPS > 0 ? NOPS : 1)> strides{};

  /// True when every array operand walks memory with unit stride in one merged
  /// dimension: the flat (1-D, vectorisable) path applies.
  bool flat(const std::array<operand_layout, (NOPS > 0 ? NOPS : 1)>& ops) const {
    if (ndim == 0) return true;
    if (ndim > 1) return false;
    for (int k = 0; k < NOPS; ++k)
      if (ops[static_cast<std::size_t>(k)].is_array && strides[static_cast<std::size_t>(k)][0] != 1) return false;
    return true;
  }
};

/// Broadcasts every operand to `out` and merges dimensions: size-1 result dims
/// are dropped, and neighbours (i, i+1) merge when, for every operand,
/// stride[i] == stride[i+1] * dim[i+1] (they walk memory as one dimension).
template <int NOPS>
merged_layout<NOPS> merge_layout(const shape& out, const std::array<operand_layout, (NOPS > 0 ? NOPS : 1)>& ops) {
  merged_layout<NOPS> m;
  for (int d = 0; d < out.size(); ++d) {
    if (out[d] == 1) continue;  // a size-1 dim contributes nothing to any offset
    const int i = m.ndim++;
    m.dims[static_cast<std::size_t>(i)] = out[d];
    for (int k = 0; k < NOPS; ++k) {
      const auto& op = ops[static_cast<std::size_t>(k)];
      index_t st = 0;
      if (op.is_array) {
        const int od = d - (out.size() - op.shp.size());  // right-aligned source dim
        if (od >= 0 && op.shp[od] != 1) st = op.strides[static_cast<std::size_t>(od)];
      }
      m.strides[static_cast<std::size_t>(k)][static_cast<std::size_t>(i)] = st;
    }
  }
  // Merge from the inside out into a compacted list.
  int w = 0;
  for (int i = 1; i < m.ndim; ++i) {
    bool can = true;
    for (int k = 0; k < NOPS && can; ++k) {
      const auto& s = m.strides[static_cast<std::size_t>(k)];
      can = s[static_cast<std::size_t>(w)] == s[static_cast<std::size_t>(i)] * m.dims[static_cast<std::size_t>(i)];
    }
    if (can) {
      m.dims[static_cast<std::size_t>(w)] *= m.dims[static_cast<std::size_t>(i)];
      for (int k = 0; k < NOPS; ++k)
        m.strides[static_cast<std::size_t>(k)][static_cast<std::size_t>(w)] =
            m.strides[static_cast<std::size_t>(k)][static_cast<std::size_t>(i)];
    } else {
      ++w;
      m.dims[static_cast<std::size_t>(w)] = m.dims[static_cast<std::size_t>(i)];
      for (int k = 0; k < NOPS; ++k)
        m.strides[static_cast<std::size_t>(k)][static_cast<std::size_t>(w)] =
            m.strides[static_cast<std::size_t>(k)][static_cast<std::size_t>(i)];
    }
  }
  if (m.ndim > 0) m.ndim = w + 1;
  return m;
}

/// True when linear indices and every operand offset fit in 31 bits, so the
/// kernels may use 32-bit index math.
template <int NOPS>
bool fits_32bit(const merged_layout<NOPS>& m, index_t n) {
  // Headroom: kernels form column indices up to one tile past the end of a row.
  constexpr index_t lim = (index_t(1) << 31) - (index_t(1) << 20);
  if (n >= lim) return false;
  for (int k = 0; k < NOPS; ++k) {
    index_t span = 0;
    for (int d = 0; d < m.ndim; ++d) {
      const index_t s = m.strides[static_cast<std::size_t>(k)][static_cast<std::size_t>(d)];
      span += (s < 0 ? -s : s) * (m.dims[static_cast<std::size_t>(d)] - 1);
    }
    if (span >= lim) return false;
  }
  return true;
}

/// Converts a merged layout into the kernel-side plan with index type Idx.
template <int NOPS, class Idx>
nd_plan<NOPS, Idx> make_plan(const merged_layout<NOPS>& m) {
  nd_plan<NOPS, Idx> p;
  p.ndim = m.ndim;
  for (int d = 0; d < m.ndim; ++d) {
    p.dims[d] = m.dims[static_cast<std::size_t>(d)];
    p.div[d] = divider<Idx>(static_cast<Idx>(m.dims[static_cast<std::size_t>(d)]));
    for (int k = 0; k < NOPS; ++k)
      p.strides[k][d] = static_cast<typename nd_plan<NOPS, Idx>::off_type>(
          m.strides[static_cast<std::size_t>(k)][static_cast<std::size_t>(d)]);
  }
  return p;
}

/// The byte range [lo, hi) an array operand can touch; empty for no elements.
inline std::pair<std::uintptr_t, std::uintptr_t> byte_extent(const operand_layout& op) {
  if (!op.is_array || op.shp.count() == 0) return {0, 0};
  std::intptr_t lo = 0, hi = 0;
  for (int d = 0; d < op.shp.size(); ++d) {
    const std::intptr_t span = static_cast<std::intptr_t>(op.strides[static_cast<std::size_t>(d)] * (op.shp[d] - 1));
    (span < 0 ? lo : hi) += span;
  }
  const auto base = reinterpret_cast<std::uintptr_t>(op.data);
  const auto es = static_cast<std::intptr_t>(op.elem_size);
  return {base + static_cast<std::uintptr_t>(lo * es), base + static_cast<std::uintptr_t>((hi + 1) * es)};
}

/// True when two array operands describe exactly the same elements in the same order.
inline bool same_elements(const operand_layout& a, const operand_layout& b) {
  if (a.data != b.data || a.elem_size != b.elem_size || a.shp != b.shp) return false;
  for (int d = 0; d < a.shp.size(); ++d)
    if (a.shp[d] != 1 && a.strides[static_cast<std::size_t>(d)] != b.strides[static_cast<std::size_t>(d)]) return false;
  return true;
}

/// True when an output cannot write two of its elements to one address. Sorting
/// dims by |stride|, each stride must step past everything the smaller dims span
/// (sufficient, like PyTorch's check; exotic non-overlapping layouts are refused).
inline bool no_internal_overlap(const operand_layout& op) {
  std::pair<index_t, index_t> ds[max_rank];  // (|stride|, dim); fixed storage, no allocation
  int nd = 0;
  for (int d = 0; d < op.shp.size(); ++d)
    if (op.shp[d] > 1) {
      const index_t s = op.strides[static_cast<std::size_t>(d)];
      ds[nd++] = {s < 0 ? -s : s, op.shp[d]};
    }
  for (int i = 1; i < nd; ++i)  // insertion sort: at most 8 entries
    for (int k = i; k > 0 && ds[k] < ds[k - 1]; --k) std::swap(ds[k], ds[k - 1]);
  index_t span = 1;  // elements covered by the smaller dims
  for (int i = 0; i < nd; ++i) {
    const auto [s, n] = ds[i];
    if (s < span) return false;
    span = s * (n - 1) + span;
  }
  return true;
}

/// True when two views of one element size provably touch no common element
/// even though their address ranges intersect: every element offset is base +
/// a combination of the strides, so if the base difference is not a multiple of
/// the strides' gcd they never meet (interleaved columns, even/odd elements).
inline bool disjoint_lattices(const operand_layout& a, const operand_layout& b) {
  if (a.elem_size != b.elem_size) return false;
  const auto es = static_cast<std::intptr_t>(a.elem_size);
  const std::intptr_t diff = reinterpret_cast<std::intptr_t>(b.data) - reinterpret_cast<std::intptr_t>(a.data);
  if (diff % es != 0) return false;
  index_t g = 0;
  auto add = [&g](const operand_layout& v) {
    for (int d = 0; d < v.shp.size(); ++d)
      if (v.shp[d] > 1) {
        index_t s = v.strides[static_cast<std::size_t>(d)];
        s = s < 0 ? -s : s;
        while (s) {  // g = gcd(g, s)
          const index_t t = g % s;
          g = s;
          s = t;
        }
      }
  };
  add(a);
  add(b);
  return g > 1 && (diff / es) % g != 0;
}

/// Validates outputs against each other and the inputs: an output may be exactly
/// an input (in-place) but may not overlap it partially or overlap another
/// output; an output may not overlap itself. Throws shape_error naming op.
template <class Outs, class Ins>
void check_overlap(const char* opname, const Outs& outs, const Ins& ins) {
  for (std::size_t j = 0; j < outs.size(); ++j) {
    const auto& o = outs[j];
    if (!no_internal_overlap(o))
      throw shape_error(std::string(opname) + ": output " + std::to_string(j) + " of shape " + o.shp.str() +
                        " has overlapping elements (zero or colliding strides)");
    const auto eo = byte_extent(o);
    auto overlaps = [&](const operand_layout& x) {
      const auto ex = byte_extent(x);
      if (!(ex.first < ex.second && eo.first < eo.second && ex.first < eo.second && eo.first < ex.second)) return false;
      return !disjoint_lattices(o, x);
    };
    for (std::size_t i = 0; i < ins.size(); ++i)
      if (ins[i].is_array && overlaps(ins[i]) && !same_elements(o, ins[i]))
        throw shape_error(std::string(opname) + ": output " + std::to_string(j) + " of shape " + o.shp.str() +
                          " partially overlaps input " + std::to_string(i) + " of shape " + ins[i].shp.str() +
                          " (only exact in-place use is allowed)");
    for (std::size_t k = 0; k < j; ++k)
      if (overlaps(outs[k]))
        throw shape_error(std::string(opname) + ": outputs " + std::to_string(k) + " and " + std::to_string(j) +
                          " overlap");
  }
}

}  // namespace ufunc::detail
