// Host backend of the reduction engine: the same reduction sources as the CUDA
// kernels, run on the OpenMP threads. Floating-point sums use NumPy's pairwise
// order within each output (or a cascade of the same depth when outputs advance
// together), so rounding error grows like log N, not N. Pairwise layouts (x_i
// against y_j) take the blocked loops of reduce_pairwise.hpp.
#pragma once

#include <algorithm>
#include <cstdint>
#include <type_traits>
#include <utility>

#include "../../stream.hpp"
#include "../memory.hpp"
#include "../reduce_job.hpp"
#include "../reduce_source.hpp"
#include "elementwise.hpp"
#include "parallel.hpp"
#include "reduce_pairwise.hpp"
#include "simd.hpp"
#include "temp.hpp"

namespace ufunc::detail {
struct identity_map;  // detail/reduce.hpp
}

namespace ufunc::detail::host {

/// A reader whose pairwise leaves are compiled per instruction set (simd.hpp):
/// a map that computes something (exp, a product of two inputs). A plain sum's
/// reader is not: SSE2 already reads at memory speed there, and the clones
/// cost compile time (a third more for a file of reductions).
template <class At>
struct simd_reader {
  At at;
  UFUNC_HOST_INLINE auto operator()(index_t r) const { return at(r); }
};
/// A reader of memory alone (no map): its elements may be read in any order.
template <class At>
struct plain_reader {
  At at;
  UFUNC_HOST_INLINE auto operator()(index_t r) const { return at(r); }
};
template <class T>
inline constexpr bool is_plain_reader = false;
template <class At>
inline constexpr bool is_plain_reader<plain_reader<At>> = true;
template <class T>
inline constexpr bool is_simd_reader = false;
template <class At>
inline constexpr bool is_simd_reader<simd_reader<At>> = true;

/// Elements reduced at the leaves of the pairwise tree (as NumPy's pairwise sum);
/// the tree above them has depth log2(n / leaf).
inline constexpr index_t pairwise_leaf = 128;

/// NumPy's pairwise scheme (numpy/_core/src/umath/loops_utils.h.src, pairwise_sum):
/// up to 8 elements serially; up to pairwise_leaf in 8 interleaved partial
/// results (each of at most 16 elements) combined as a tree; above that, two
/// halves (the first a multiple of 8) reduced recursively. A float sum's rounding
/// error is then at most about (16 + log2(n / 128)) * eps * sum|x|, NumPy's bound
/// on the same data, where a serial leaf of 128 would give 128 * eps * sum|x|.
template <class Acc, class At, class Op>
Acc pairwise(const At& at, index_t lo, index_t hi, const Op& op);

/// The pairwise sum of a plain read (plain_reader) of arithmetic accumulators,
/// in lanes: a block of 16 V elements is V lanes (64 bytes of accumulators: 16
/// floats, 8 doubles) of 16 elements each, summed serially per lane (NumPy's
/// leaf: 8 partials of 16 elements); blocks combine as a binary counter (level
/// L holds 2^L blocks: the pairwise tree over blocks, lane by lane), and the V
/// lanes as a tree at the end. A float sum's error: at most (16 + log2(n / 16V)
/// + log2 V + 1) eps sum|x|, within NumPy's (16 + log2(n / 128)) + 2, and the
/// documented (log2 n + 32). Against NumPy's recursion (a tree of 8 partials per
/// leaf of 128, a call per node): 4 independent vector chains instead of 2, and
/// no horizontal sum per leaf; one core summed from L2 at the speed of a plain
/// read (bench/NOTES.md, eleventh session), not at half of it.
template <class Acc, class At, class Op>
UFUNC_HOST_LOOP_ATTR Acc lane_pairwise(const At& at, index_t lo, index_t hi, const Op& op) {
  constexpr int V = sizeof(Acc) >= 8 ? 8 : sizeof(Acc) >= 4 ? 16 : 32;
  constexpr int S = 16;
  constexpr index_t B = index_t(V) * S;
  Acc lev[64][V];
  std::uint64_t full = 0;  // bit L: level L holds the partials of 2^L blocks
  const auto push = [&](Acc* acc) UFUNC_HOST_INLINE {
    int L = 0;
    for (; (full >> L) & 1u; ++L)  // carry: the earlier partial on the left
      for (int k = 0; k < V; ++k) acc[k] = op(lev[L][k], acc[k]);
    full = (full & ~((std::uint64_t(1) << L) - 1)) | (std::uint64_t(1) << L);
    for (int k = 0; k < V; ++k) lev[L][k] = acc[k];
  };
  index_t b = lo;
  for (; b + B <= hi; b += B) {
    Acc acc[V];
    for (int k = 0; k < V; ++k) acc[k] = at(b + k);
    for (int s = 1; s < S; ++s)
      for (int k = 0; k < V; ++k) acc[k] = op(acc[k], at(b + s * V + k));
    push(acc);
  }
  const index_t tail = hi - b;
  Acc small{};
  const bool has_small = tail > 0 && tail < V;
  if (tail >= V) {  // a last block of fewer rows: each lane still at most S elements
    Acc acc[V];
    for (int k = 0; k < V; ++k) acc[k] = at(b + k);
    index_t s = 1;
    for (; (s + 1) * V <= tail; ++s)
      for (int k = 0; k < V; ++k) acc[k] = op(acc[k], at(b + s * V + k));
    for (index_t k = 0; k < tail - s * V; ++k) acc[k] = op(acc[k], at(b + s * V + k));
    push(acc);
  } else if (has_small) {  // fewer than V elements after the blocks: serially
    small = at(b);
    for (index_t r = b + 1; r < hi; ++r) small = op(small, at(r));
  }
  if (full == 0) return small;
  Acc acc[V];
  bool any = false;
  for (int L = 0; L < 64; ++L) {  // the levels left, from the latest blocks up
    if (!((full >> L) & 1u)) continue;
    for (int k = 0; k < V; ++k) acc[k] = any ? op(lev[L][k], acc[k]) : lev[L][k];
    any = true;
  }
  for (int w = V / 2; w >= 1; w /= 2)
    for (int k = 0; k < w; ++k) acc[k] = op(acc[2 * k], acc[2 * k + 1]);
  return has_small ? op(acc[0], small) : acc[0];
}

template <class Acc, class At, class Op>
Acc pairwise(const At& at, index_t lo, index_t hi, const Op& op) {
  const index_t n = hi - lo;
  if (n <= 8) {
    Acc a = at(lo);
    for (index_t r = lo + 1; r < hi; ++r) a = op(a, at(r));
    return a;
  }
  if (n <= pairwise_leaf) {
    // A simd_reader's leaf is compiled for the host's instruction set
    // (simd.hpp): the eight partial results and the map before them as one
    // vector of 8 lanes with AVX2; the same operations in the same order.
    const auto leaf = [&]() UFUNC_HOST_INLINE {
      Acc p[8] = {at(lo), at(lo + 1), at(lo + 2), at(lo + 3), at(lo + 4), at(lo + 5), at(lo + 6), at(lo + 7)};
      index_t r = lo + 8;
      for (; r + 8 <= hi; r += 8)
        for (int k = 0; k < 8; ++k) p[k] = op(p[k], at(r + k));
      Acc a = op(op(op(p[0], p[1]), op(p[2], p[3])), op(op(p[4], p[5]), op(p[6], p[7])));
      for (; r < hi; ++r) a = op(a, at(r));
      return a;
    };
    if constexpr (is_simd_reader<At>)
      return simd_run(leaf);
    else
      return leaf();
  }
  if constexpr (is_plain_reader<At> && std::is_arithmetic_v<Acc> &&
                noexcept(op(std::declval<const Acc&>(), std::declval<const Acc&>())))
    return lane_pairwise<Acc>(at, lo, hi, op);  // above one leaf: the lanes
  index_t half = n / 2;
  half -= half % 8;
  // The halves in memory order: as op's arguments, GCC evaluates the second
  // first, and the leaves then read memory backwards, 512 bytes at a time, which
  // the CPU's prefetchers do not follow (a 2^24 float sum from DRAM on one AMD
  // EPYC core: 5.7 GB/s, against 30 in this order).
  const Acc first = pairwise<Acc>(at, lo, lo + half, op);
  const Acc second = pairwise<Acc>(at, lo + half, hi, op);
  return op(first, second);
}

/// Calls fn(at) with at(r) = the reduced element r of the output at base b, as
/// an accumulator. One array input whose reduced elements are contiguous (and a
/// map that needs no index) is read through a plain pointer: the pairwise
/// leaves' eight partial sums then compile to SIMD adds (the general source
/// computes each element's offset from its plan: a gather the compiler leaves
/// scalar; a float sum of 2^20 elements ran at 1.8 ms, a serial loop's speed).
/// Several array inputs whose reduced elements are all contiguous (a dot
/// product) are read through one pointer each the same way.
template <class Src, class = void>
inline constexpr bool pointers_candidate_v = false;
template <class Src>
inline constexpr bool pointers_candidate_v<Src, std::enable_if_t<Src::pointers_candidate>> = true;

template <class Src, class = void>
inline constexpr bool computed_candidate_v = false;
template <class Src>
inline constexpr bool computed_candidate_v<Src, std::enable_if_t<Src::computed_candidate>> = true;

/// The reduced elements of one computed input (a lazy random leaf) with unit
/// stride, made `tile` at a time from whole Philox blocks as they are read:
/// pairwise reads its range in increasing order, so each element is made once,
/// a block per four floats (one per element through src.at). Holds its tile:
/// one reader per thread (reduce() copies it into each work item).
template <class Src, class Op>
struct computed_reader {
  static constexpr index_t tile = 64;
  const Src* src;
  Op op;  // at the output's base
  mutable index_t lo = -tile;
  mutable typename Op::value_type v[tile];
  computed_reader(const Src* s, const Op& o) : src(s), op(o) {}
  auto operator()(index_t r) const {
    if (r < lo || r >= lo + tile) {
      lo = r - static_cast<index_t>((op.base + static_cast<std::uint64_t>(r)) % 4);  // a block's first draw
      op.template load_into<static_cast<int>(tile)>(lo, v);
    }
    return src->lift(src->map(v[r - lo]), r);
  }
};

template <class Src, class Fn>
void with_reader(const Src& src, const typename Src::base_t& b, const Fn& fn) {
  if constexpr (computed_candidate_v<Src>) {
    if (src.red.ndim == 1 && src.red.strides[0][0] == 1) {
      using Op = std::decay_t<decltype(src.computed_input(b))>;
      fn(computed_reader<Src, Op>(&src, src.computed_input(b)));
      return;
    }
  }
  if constexpr (Src::contiguous_candidate) {
    if (src.red.ndim == 1 && src.red.strides[0][0] == 1) {
      const auto* const p = src.first_pointer() + b.off[0];
      const auto at = [&src, p](index_t r) UFUNC_HOST_INLINE { return src.lift(src.map(p[r]), r); };
      if constexpr (std::is_same_v<std::decay_t<decltype(src.map)>, identity_map>)
        fn(plain_reader<decltype(at)>{at});
      else
        fn(simd_reader<decltype(at)>{at});
      return;
    }
  }
  if constexpr (pointers_candidate_v<Src>) {
    constexpr int nin = static_cast<int>(cuda::std::tuple_size<decltype(src.ins)>::value);
    bool unit = src.red.ndim == 1;
    for (int k = 0; k < nin && unit; ++k) unit = src.red.strides[static_cast<std::size_t>(k)][0] == 1;
    if (unit) {
      const auto at = src.unit_reader(b, std::make_index_sequence<nin>{});
      fn(simd_reader<decltype(at)>{at});
      return;
    }
  }
  fn([&src, &b](index_t r) { return src.at(b, r); });
}

/// Elements per thread below which a reduction that only reads (a plain sum,
/// min or max of one input: no map) stays on fewer threads, down to the caller
/// alone. Such a loop reads about 4 G floats/s on one core (a 2^16 float sum:
/// 17 us on the 2-core development machine), so a `chunk`-sized item is 4 us:
/// less than waking a sleeping worker costs, and on a machine whose cores are
/// shared a second thread lost to the caller alone at every size up to 2^20
/// (bench/NOTES.md, 2026-11-27 second session). A reduction with a map (a lazy
/// expression, a product of inputs) costs more per element and keeps `chunk`.
inline constexpr index_t reading_grain = index_t(1) << 16;

/// The thread cap (parallel_n's max_threads) for a reduction of `work`
/// elements: one thread per `grain` of them, 1 (the caller alone) below two.
template <class Src>
int reduce_threads(index_t work) {
  constexpr index_t grain = std::is_same_v<std::decay_t<decltype(std::declval<const Src&>().map)>, identity_map>
                                ? reading_grain
                                : chunk;
  const index_t t = work / grain;
  return t <= 1 ? 1 : static_cast<int>(std::min<index_t>(t, 1 << 20));
}

/// Rows reduced serially per output in the column path before their partial
/// joins the cascade below (a float sum's error: about (16 + log2(R / 16)) eps).
inline constexpr index_t cascade_block = 16;

/// out[o] = tail(reduction of src's elements of output o) for o in [0, K); R >= 1.
/// `rows_like`: the reduced elements of one output are close in memory, so each
/// output is reduced on its own; otherwise a block of outputs advances together
/// through the reduced dims, reading memory in order.
template <class Src, class Op, class Tail, class Res>
void reduce(const Src& src, index_t K, index_t R, bool rows_like, const Op& op, const Tail& tail, Res* out) {
  using Acc = typename Src::acc_type;
  if (K == 1) {
    const auto b = src.base(0);
    const index_t nchunks = (R + chunk - 1) / chunk;
    if (nchunks == 1) {  // one work item: no partials
      with_reader(src, b, [&](const auto& at) { out[0] = static_cast<Res>(tail(pairwise<Acc>(at, 0, R, op))); });
      return;
    }
    host_temp<Acc> part(nchunks);  // before anything is written to out
    with_reader(src, b, [&](const auto& at) {
      parallel_n(
          nchunks,
          [&](index_t c) {
            const auto mine = at;  // a work item's own reader (a computed_reader holds its tile)
            part[c] = pairwise<Acc>(mine, c * chunk, std::min(R, (c + 1) * chunk), op);
          },
          reduce_threads<Src>(R));
    });
    out[0] = static_cast<Res>(tail(pairwise<Acc>([&](index_t c) { return part[c]; }, 0, nchunks, op)));
    return;
  }
  if (rows_like) {
    const index_t per = std::max<index_t>(1, chunk / R);  // outputs per work item
    parallel_n(
        (K + per - 1) / per,
        [&](index_t c) {
          for (index_t o = c * per, e = std::min(K, o + per); o < e; ++o) {
            const auto b = src.base(o);
            with_reader(src, b, [&](const auto& at) { out[o] = static_cast<Res>(tail(pairwise<Acc>(at, 0, R, op))); });
          }
        },
        reduce_threads<Src>(K * R));
    return;
  }
  // Outputs advance together through the reduced dims, reading memory in order.
  // Not a serial sum per output (error growing like R): blocks of cascade_block
  // rows are reduced serially, and their partials combined as a binary counter
  // (level L holds the reduction of 2^L blocks; a full level carries into the
  // next), the pairwise tree kept in O(w log R) memory.
  // Outputs advanced together: up to 1024 (a row of 4 KiB read at a time; 256
  // read column sums at two thirds of NumPy's speed), fewer when that leaves a
  // thread without work, and no more bases than 16 KiB of stack hold (many
  // inputs). Each output's order of operations is the same for every width, so
  // results do not depend on it (nor on the thread count).
  constexpr index_t W_max =
      std::max<index_t>(64, std::min<index_t>(1024, 16384 / static_cast<index_t>(sizeof(typename Src::base_t))));
  const int threads = std::min(parallel_slots(), reduce_threads<Src>(K * R));
  index_t W = 64;  // doubled while the double fits b[W_max] (W_max need not be a power of two)
  while (W * 2 <= W_max && W * 2 * threads <= K) W *= 2;
  const index_t nblocks = (R + cascade_block - 1) / cascade_block;
  std::size_t nlev = 1;  // levels 0..nlev-1 hold the counter's bits: 2^nlev > nblocks
  while ((index_t(1) << nlev) <= nblocks) ++nlev;
  // Each thread's levels, allocated here: through the library's allocator, and
  // before any output is written (a failure inside the region would leave the
  // outputs of items already done written).
  const index_t nitems = (K + W - 1) / W;
  const std::size_t per_slot = (nlev + 1) * static_cast<std::size_t>(W);
  const index_t nslots = nitems == 1 ? 1 : threads;
  host_temp<Acc> stores(nslots * static_cast<index_t>(per_slot));
  parallel_n_slots(nitems, [&](index_t c, int slot) {
    const index_t o0 = c * W, w = std::min(W, K - o0);
    typename Src::base_t b[W_max];
    for (index_t j = 0; j < w; ++j) b[j] = src.base(o0 + j);
    const auto uw = static_cast<std::size_t>(w);
    Acc* const store = &stores[static_cast<index_t>(slot) * static_cast<index_t>(per_slot)];
    Acc* const acc = store + nlev * uw;  // the current block's partials
    std::uint64_t full = 0;                      // bit L: level L holds a partial
    // at(j, r): element r of output o0 + j.
    const auto cascade = [&](const auto& at) UFUNC_HOST_INLINE {
      // A block's rows are folded J outputs at a time, the J partials kept in
      // registers across the block's rows (not loaded and stored once a row, as
      // a loop over whole rows does): a row pass of the loop costs two loads and
      // a store per element, this one a load. Same order per output.
      constexpr index_t J = std::max<index_t>(1, 128 / static_cast<index_t>(sizeof(Acc)));
      for (index_t r0 = 0; r0 < R; r0 += cascade_block) {
        const index_t r1 = std::min(R, r0 + cascade_block);
        index_t j0 = 0;
        for (; j0 + J <= w; j0 += J) {
          Acc t[J];
          for (index_t jj = 0; jj < J; ++jj) t[jj] = at(j0 + jj, r0);
          for (index_t r = r0 + 1; r < r1; ++r)
            for (index_t jj = 0; jj < J; ++jj) t[jj] = op(t[jj], at(j0 + jj, r));
          for (index_t jj = 0; jj < J; ++jj) acc[j0 + jj] = t[jj];
        }
        for (index_t j = j0; j < w; ++j) acc[j] = at(j, r0);
        for (index_t r = r0 + 1; r < r1; ++r)
          for (index_t j = j0; j < w; ++j) acc[j] = op(acc[j], at(j, r));
        std::size_t L = 0;
        for (; (full >> L) & 1u; ++L) {  // carry: the earlier partial on the left
          const Acc* lv = store + L * uw;
          for (index_t j = 0; j < w; ++j) acc[j] = op(lv[j], acc[j]);
        }
        full = (full & ~((std::uint64_t(1) << L) - 1)) | (std::uint64_t(1) << L);
        std::copy(acc, acc + w, store + L * uw);
      }
    };
    bool rows_of_pointer = false;  // one input, one reduced dim, the block's outputs adjacent
    if constexpr (Src::contiguous_candidate) {
      rows_of_pointer = src.red.ndim == 1;
      for (index_t j = 1; j < w && rows_of_pointer; ++j) rows_of_pointer = b[j].off[0] == b[0].off[0] + j;
    }
    if (rows_of_pointer) {
      if constexpr (Src::contiguous_candidate) {
        // A row of the block is w adjacent elements: read through a pointer, the
        // loop over j vectorises (the general source computes every element's
        // offsets: column sums ran at a tenth of NumPy's speed). Same order.
        const auto* const p = src.first_pointer() + b[0].off[0];
        const auto rs = static_cast<index_t>(src.red.strides[0][0]);
        // In the widest vector set (simd.hpp; each output's order of operations
        // is the same in every clone).
        simd_run([&]() UFUNC_HOST_INLINE {
          cascade([&src, p, rs](index_t j, index_t r) UFUNC_HOST_INLINE { return src.lift(src.map(p[r * rs + j]), r); });
        });
      }
    } else {
      cascade([&src, &b](index_t j, index_t r) UFUNC_HOST_INLINE { return src.at(b[j], r); });
    }
    // The levels left, from the smallest up: the tail of the tree.
    bool any = false;
    for (std::size_t L = 0; L < nlev; ++L) {
      if (!((full >> L) & 1u)) continue;
      const Acc* lv = store + L * uw;
      for (index_t j = 0; j < w; ++j) acc[j] = any ? op(lv[j], acc[j]) : lv[j];
      any = true;
    }
    for (index_t j = 0; j < w; ++j) out[o0 + j] = static_cast<Res>(tail(acc[j]));
  }, threads);
}

}  // namespace ufunc::detail::host

namespace ufunc::detail {

template <class Target>
struct reduce_backend;

template <>
struct reduce_backend<target::host> {
  /// out[0..K) = the K reductions (R >= 1): a pairwise layout (pairwise_plan.hpp)
  /// takes the blocked loops of reduce_pairwise.hpp, anything else reduce().
  template <class Job, class Res>
  static void run(const Job& j, Res* out, stream_ref) {
    using Src = bare_t<decltype(j.src)>;
    if constexpr (pairwise_candidate<Src>::value)
      if (host::reduce_pairwise(j.src, j.g.K, j.g.R, j.op, j.tail(), out)) return;
    host::reduce(j.src, j.g.K, j.g.R, j.g.rows_like, j.op, j.tail(), out);
  }
  /// The single reduction (K == 1) returned to the caller.
  template <class Res, class Job>
  static Res to_host(const Job& j, stream_ref s) {
    Res r{};
    run(j, &r, s);
    return r;
  }
};

}  // namespace ufunc::detail
