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
/// elements) or a broadcast value (no memory). A computed array (a lazy random
/// leaf, operand.hpp's in_computed) has a shape and strides like any array, so
/// broadcasting, merging and the kernels' walks treat it as one, and no memory:
/// `computed` is set and `data` is computed_origin() (16-byte aligned, never
/// read), so it overlaps nothing and passes every alignment test.
struct operand_layout {
  bool is_array = false;
  bool computed = false;
  const void* data = nullptr;
  std::size_t elem_size = 0;
  shape shp;
  std::array<index_t, max_rank> strides{};
};

/// Dims and per-operand strides after broadcasting and merging; innermost last.
/// The layout of a contiguous (row-major) array of shape `s` at `data`.
inline operand_layout contiguous_layout(const void* data, std::size_t elem_size, const shape& s) {
  operand_layout l;
  l.is_array = true;
  l.data = data;
  l.elem_size = elem_size;
  l.shp = s;
  const auto cs = contiguous_strides(s);
  std::copy(cs.begin(), cs.end(), l.strides.begin());
  return l;
}

/// The data address of every computed layout: a real, aligned address (pointer
/// arithmetic on it, as a stream plan's rebasing does, stays defined), whose
/// bytes nothing reads.
inline const void* computed_origin() {
  alignas(64) static const unsigned char origin[64] = {};
  return origin;
}

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

/// The largest element count and operand offset span a launch with 32-bit
/// index math may have. Headroom: kernels form column indices up to one tile
/// past the end of a row.
inline constexpr index_t index32_limit = (index_t(1) << 31) - (index_t(1) << 20);

/// Operand k's offset span over a merged layout: sum over dims of |stride| * (dim - 1).
template <int NOPS>
index_t offset_span(const merged_layout<NOPS>& m, int k) {
  index_t span = 0;
  for (int d = 0; d < m.ndim; ++d) {
    const index_t s = m.strides[static_cast<std::size_t>(k)][static_cast<std::size_t>(d)];
    span += (s < 0 ? -s : s) * (m.dims[static_cast<std::size_t>(d)] - 1);
  }
  return span;
}

/// True when linear indices and every operand offset stay below `lim` (by
/// default index32_limit), so the kernels may use 32-bit index math.
template <int NOPS>
bool fits_32bit(const merged_layout<NOPS>& m, index_t n, index_t lim = index32_limit) {
  if (n >= lim) return false;
  for (int k = 0; k < NOPS; ++k)
    if (offset_span(m, k) >= lim) return false;
  return true;
}

/// Calls fn(piece, first, count) for pieces of the layout m (n elements) that
/// together cover each of its elements once and each fit 32-bit index math
/// (fits_32bit with `lim`): `piece` is a merged layout, `first[k]` operand k's
/// element offset of the piece's element 0 (from the layout's element 0), and
/// `count` the piece's element count. The dim whose offsets span the most is
/// halved until a piece fits (as PyTorch's TensorIterator splits for 32-bit
/// indexing): at most about twice the launches the sizes need, and the kernels
/// compile for 32-bit indices only. A piece's size-1 dims are dropped (a
/// one-element piece keeps one).
template <int NOPS, class Fn>
void for_each_32bit_piece(const merged_layout<NOPS>& m, index_t n, const Fn& fn, index_t lim = index32_limit,
                          std::array<index_t, (NOPS > 0 ? NOPS : 1)> first = {}) {
  if (n == 0) return;
  if (fits_32bit(m, n, lim)) return fn(m, first, n);
  int split = 0;  // the dim whose offsets span the most (a broadcast dim counts its length)
  index_t widest = -1;
  for (int d = 0; d < m.ndim; ++d) {
    const auto ud = static_cast<std::size_t>(d);
    index_t step = 1;
    for (int k = 0; k < NOPS; ++k) {
      const index_t s = m.strides[static_cast<std::size_t>(k)][ud];
      step = std::max(step, s < 0 ? -s : s);
    }
    if (m.dims[ud] > 1 && (m.dims[ud] - 1) * step > widest) widest = (m.dims[ud] - 1) * step, split = d;
  }
  const auto us = static_cast<std::size_t>(split);
  const index_t len = m.dims[us], lo = len / 2;
  for (int half = 0; half < 2; ++half) {
    merged_layout<NOPS> p;
    const index_t plen = half == 0 ? lo : len - lo;
    auto pfirst = first;
    for (int k = 0; k < NOPS; ++k) pfirst[static_cast<std::size_t>(k)] += half * lo * m.strides[static_cast<std::size_t>(k)][us];
    for (int d = 0; d < m.ndim; ++d) {  // copy the dims, dropping those of length 1
      const auto ud = static_cast<std::size_t>(d);
      const index_t dl = d == split ? plen : m.dims[ud];
      if (dl == 1) continue;
      const auto ui = static_cast<std::size_t>(p.ndim++);
      p.dims[ui] = dl;
      for (int k = 0; k < NOPS; ++k) p.strides[static_cast<std::size_t>(k)][ui] = m.strides[static_cast<std::size_t>(k)][ud];
    }
    if (p.ndim == 0) p.ndim = 1, p.dims[0] = 1;  // one element: kernels want a dim
    for_each_32bit_piece(p, n / len * plen, fn, lim, pfirst);
  }
}

/// The mixed-layout path (a tiled kernel; see cuda/kernels/elementwise_tiles.cuh):
/// the inputs to stage through shared memory, as a mask over operands (outputs
/// first). An input is staged when it runs through memory along the
/// second-to-last merged dim (stride 1 there) while every output runs along the
/// last one (stride 1) and the input does not (a 32-byte sector per element if
/// read directly). 0 when no input is like that, or the last two dims are too
/// short for tiles to pay.
template <int NOPS>
std::uint64_t staged_inputs(const merged_layout<NOPS>& m, const std::array<operand_layout, (NOPS > 0 ? NOPS : 1)>& ops,
                            int nout, index_t min_extent = 32) {
  static_assert(NOPS <= 64, "ufunc: at most 64 operands");
  if (m.ndim < 2) return 0;
  const auto last = static_cast<std::size_t>(m.ndim - 1);
  if (m.dims[last] < min_extent || m.dims[last - 1] < min_extent) return 0;
  for (int j = 0; j < nout; ++j)
    if (m.strides[static_cast<std::size_t>(j)][last] != 1) return 0;
  std::uint64_t mask = 0;
  for (int k = nout; k < NOPS; ++k) {
    const auto& st = m.strides[static_cast<std::size_t>(k)];
    if (ops[static_cast<std::size_t>(k)].is_array && st[last] != 1 && st[last] != 0 && st[last - 1] == 1)
      mask |= std::uint64_t(1) << k;
  }
  return mask;
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

/// True when two array operands describe exactly the same elements in the same order.
inline bool same_elements(const operand_layout& a, const operand_layout& b) {
  if (a.computed || b.computed || a.data != b.data || a.elem_size != b.elem_size || a.shp != b.shp) return false;
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

/// Whether two array operands can touch a common byte: NumPy's
/// solve_may_share_memory, as a bounded search. An element of `a` starts at
/// a.data + sum(i_d * s_d * es_a), one of `b` likewise; they share a byte when
/// the difference of two such offsets plus a byte within the elements is zero:
///   sum_d (s_d es_a) i_d - sum_e (t_e es_b) j_e + p = b.data - a.data,
///   0 <= i_d < n_d, 0 <= j_e < m_e, -(es_b - 1) <= p <= es_a - 1.
/// Terms of equal coefficient merge, then are taken largest coefficient first;
/// each may take only the values that leave a remainder the smaller terms can
/// still reach (their range and gcd), so views of one array with the same
/// strides admit at most two values per term (a few hundred steps at rank 8).
/// Past `max_work` steps the answer is "may overlap", which callers treat as
/// overlap.
inline bool may_overlap(const operand_layout& a, const operand_layout& b, long max_work = 1L << 16) {
  if (!a.is_array || !b.is_array || a.computed || b.computed || a.shp.count() == 0 || b.shp.count() == 0) return false;
  struct term {
    std::intptr_t c, lo, hi;  // coefficient > 0, value range
  };
  term t[2 * max_rank + 1];
  int nt = 0;
  auto add = [&](std::intptr_t c, std::intptr_t lo, std::intptr_t hi) {
    if (c < 0) c = -c, lo = -lo, hi = -hi, std::swap(lo, hi);
    if (c != 0 && lo != hi) t[nt++] = {c, lo, hi};
  };
  const auto esa = static_cast<std::intptr_t>(a.elem_size), esb = static_cast<std::intptr_t>(b.elem_size);
  for (int d = 0; d < a.shp.size(); ++d)
    add(static_cast<std::intptr_t>(a.strides[static_cast<std::size_t>(d)]) * esa, 0, a.shp[d] - 1);
  for (int d = 0; d < b.shp.size(); ++d)
    add(-static_cast<std::intptr_t>(b.strides[static_cast<std::size_t>(d)]) * esb, 0, b.shp[d] - 1);
  add(1, -(esb - 1), esa - 1);
  for (int i = 1; i < nt; ++i)  // largest coefficient first; at most 17 terms
    for (int k = i; k > 0 && t[k].c > t[k - 1].c; --k) std::swap(t[k], t[k - 1]);
  // Terms of one coefficient merge (c x + c y = c (x + y)): two views of one
  // array then have a term per distinct stride, each admitting at most two values.
  int m = 0;
  for (int i = 0; i < nt; ++i)
    if (m > 0 && t[m - 1].c == t[i].c)
      t[m - 1].lo += t[i].lo, t[m - 1].hi += t[i].hi;
    else
      t[m++] = t[i];
  nt = m;
  // What terms k.. can sum to: [lo[k], hi[k]], in steps of g[k].
  std::intptr_t lo[2 * max_rank + 2], hi[2 * max_rank + 2], g[2 * max_rank + 2];
  lo[nt] = hi[nt] = g[nt] = 0;
  for (int k = nt - 1; k >= 0; --k) {
    lo[k] = lo[k + 1] + t[k].c * t[k].lo;
    hi[k] = hi[k + 1] + t[k].c * t[k].hi;
    std::intptr_t x = g[k + 1], y = t[k].c;
    while (y) x %= y, std::swap(x, y);
    g[k] = x;
  }
  const std::intptr_t target =
      static_cast<std::intptr_t>(reinterpret_cast<std::uintptr_t>(b.data) - reinterpret_cast<std::uintptr_t>(a.data));
  long work = 0;
  auto floor_div = [](std::intptr_t x, std::intptr_t y) { return x / y - ((x % y != 0) && ((x < 0) != (y < 0))); };
  auto ceil_div = [&](std::intptr_t x, std::intptr_t y) { return -floor_div(-x, y); };
  // Returns 1 (a solution), 0 (none), -1 (out of work).
  auto solve = [&](auto&& self, int k, std::intptr_t rem) -> int {
    if (++work > max_work) return -1;
    if (rem < lo[k] || rem > hi[k] || (g[k] ? rem % g[k] != 0 : rem != 0)) return 0;
    if (k == nt) return 1;
    // x with rem - c x within what terms k+1.. reach.
    const std::intptr_t x0 = std::max(t[k].lo, ceil_div(rem - hi[k + 1], t[k].c));
    const std::intptr_t x1 = std::min(t[k].hi, floor_div(rem - lo[k + 1], t[k].c));
    for (std::intptr_t x = x0; x <= x1; ++x) {
      const int r = self(self, k + 1, rem - t[k].c * x);
      if (r != 0) return r;
    }
    return 0;
  };
  return solve(solve, 0, target) != 0;
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
    auto overlaps = [&](const operand_layout& x) { return may_overlap(o, x); };
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
