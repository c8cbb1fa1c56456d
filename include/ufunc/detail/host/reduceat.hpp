// Host backend of reduceat (the ufunc method): each output's segment reduced in
// the host reduce's pairwise order (NumPy's, reduce.hpp), the outputs in blocks
// spread over the host threads.
#pragma once

#include <algorithm>
#include <cstdint>
#include <type_traits>

#include "../../stream.hpp"
#include "../reduce_source.hpp"
#include "parallel.hpp"
#include "reduce.hpp"  // pairwise

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

  /// out at output s = k * m + i (see reduceat_geometry) = op over segment i of
  /// kept row k, for the K kept rows; each a pairwise reduction (a float sum's
  /// error about (16 + log2(L / 128)) eps sum|x| for a segment of L elements).
  /// `rows`: x is read at k n + r (contiguous, the axis last).
  template <class Acc, class Op, class G>
  static void run(const acc_op<Acc, Op>& op, const G& g, index_t K, bool rows, Acc* out, stream_ref) {
    const index_t total = K * g.m;
    // Blocks of outputs, about 16 per thread, each output reduced whole by one
    // thread: its order (and so its rounding) does not depend on the thread count.
    const index_t threads = host::parallel_slots();
    const index_t blk = std::max<index_t>(1, total / (16 * threads));
    host::parallel_n((total + blk - 1) / blk, [&](index_t c) {
      for (index_t o = c * blk; o < std::min(total, (c + 1) * blk); ++o) {
        const index_t k = o / g.m, i = o - k * g.m;
        index_t off[2];
        g.row(k, off);
        const auto* x = g.x;
        Acc v;
        if (rows) {
          const auto* p = x + k * g.n;
          v = host::pairwise<Acc>([p](index_t r) { return static_cast<Acc>(p[r]); }, g.begin(i), g.end(i), op);
        } else {
          const auto* p = x + off[0];
          const index_t st = g.step_x;
          v = host::pairwise<Acc>([p, st](index_t r) { return static_cast<Acc>(p[r * st]); }, g.begin(i), g.end(i), op);
        }
        out[off[1] + i * g.step_out] = v;
      }
    });
  }
};

}  // namespace ufunc::detail
