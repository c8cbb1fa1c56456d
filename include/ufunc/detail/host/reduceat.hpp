// Host backend of reduceat (the ufunc method): each output's segment reduced in
// the host reduce's pairwise order (NumPy's, reduce.hpp), the outputs in blocks
// spread over the host threads; a few long segments in chunks over the threads.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <type_traits>

#include "../../stream.hpp"
#include "../reduce_source.hpp"
#include "parallel.hpp"
#include "elementwise.hpp"  // chunk
#include "reduce.hpp"  // pairwise
#include "temp.hpp"

namespace ufunc::detail {

template <class Target>
struct reduceat_backend;

template <>
struct reduceat_backend<target::host> {
  /// The position of the first index outside [0, n), or m when there is none.
  template <class Ix>
  static index_t first_bad(const Ix* idx, index_t step, index_t m, index_t n, stream_ref) {
    for (index_t k = 0; k < m; ++k) {
      const Ix v = idx[k * step];
      if constexpr (std::is_signed_v<Ix>)
        if (v < 0) return k;
      if (static_cast<std::uint64_t>(v) >= static_cast<std::uint64_t>(n)) return k;
    }
    return m;
  }

  /// Up to this many outputs, each long segment is split in chunks over the
  /// threads (a fixed number: which order a sum takes never depends on the
  /// thread count).
  static constexpr index_t few_outputs = 64;

  /// out at output s = k * m + i (see reduceat_geometry) = op over segment i of
  /// kept row k, for the K kept rows, in the host reduce's pairwise order: a
  /// segment of up to host::chunk elements as one pairwise reduction, a longer
  /// one (when there are few outputs) as chunks of host::chunk reduced in
  /// parallel and their partials pairwise, as f.reduce's single output. A float
  /// sum of L elements is within (log2 L + 32) eps sum|x| (docs/reductions.md).
  /// `rows`: x is read at k n + r (contiguous, the axis last).
  template <class Acc, class Op, class G>
  static void run(const acc_op<Acc, Op>& op, const G& g, index_t K, bool rows, Acc* out, stream_ref) {
    const index_t total = K * g.m;
    // fn(at, begin, end, dst) for output o: its reader, segment and place.
    const auto with_output = [&](index_t o, const auto& fn) {
      const index_t k = o / g.m, i = o - k * g.m;
      index_t off[2];
      g.row(k, off);
      Acc* const dst = out + off[1] + i * g.step_out;
      if (rows) {
        const auto* p = g.x + k * g.n;
        fn([p](index_t r) { return static_cast<Acc>(p[r]); }, g.begin(i), g.end(i), dst);
      } else {
        const auto* p = g.x + off[0];
        const index_t st = g.step_x;
        fn([p, st](index_t r) { return static_cast<Acc>(p[r * st]); }, g.begin(i), g.end(i), dst);
      }
    };
    if (total <= few_outputs) {
      std::array<index_t, few_outputs + 1> first{};  // output o's chunks: [first[o], first[o + 1])
      for (index_t o = 0; o < total; ++o)
        with_output(o, [&](const auto&, index_t b, index_t e, Acc*) {
          first[static_cast<std::size_t>(o + 1)] = first[static_cast<std::size_t>(o)] + (e - b + host::chunk - 1) / host::chunk;
        });
      const index_t nchunks = first[static_cast<std::size_t>(total)];
      host::host_temp<Acc> part(nchunks);  // before anything is written to out
      host::parallel_n(nchunks, [&](index_t c) {
        const index_t o = (std::upper_bound(first.begin(), first.begin() + total + 1, c) - first.begin()) - 1;
        with_output(o, [&](const auto& at, index_t b, index_t e, Acc*) {
          const index_t lo = b + (c - first[static_cast<std::size_t>(o)]) * host::chunk;
          part[c] = host::pairwise<Acc>(at, lo, std::min(e, lo + host::chunk), op);
        });
      });
      for (index_t o = 0; o < total; ++o)
        with_output(o, [&](const auto&, index_t, index_t, Acc* dst) {
          const index_t c0 = first[static_cast<std::size_t>(o)];
          *dst = host::pairwise<Acc>([&](index_t c) { return part[c0 + c]; }, 0, first[static_cast<std::size_t>(o + 1)] - c0, op);
        });
      return;
    }
    // Blocks of outputs, about 16 per thread, each output reduced whole by one
    // thread: its order (and so its rounding) does not depend on the thread count.
    const index_t threads = host::parallel_slots();
    const index_t blk = std::max<index_t>(1, total / (16 * threads));
    host::parallel_n((total + blk - 1) / blk, [&](index_t c) {
      for (index_t o = c * blk; o < std::min(total, (c + 1) * blk); ++o)
        with_output(o, [&](const auto& at, index_t b, index_t e, Acc* dst) { *dst = host::pairwise<Acc>(at, b, e, op); });
    });
  }
};

}  // namespace ufunc::detail
