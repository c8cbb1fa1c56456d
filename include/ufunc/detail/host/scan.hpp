// Host backend of the scan (the ufunc method accumulate): one loop per segment,
// segments in parallel on the OpenMP threads.
#pragma once

#include "../../stream.hpp"
#include "../reduce_source.hpp"
#include "parallel.hpp"

namespace ufunc::detail {

template <class Target>
struct scan_backend;

template <>
struct scan_backend<target::host> {
  /// out at sg.out_offset(i) = inclusive scan of sg.value(i) within each of the
  /// K segments of R elements (segment-major order, see scan_geometry).
  template <class Acc, class Op, class G>
  static void run(const acc_op<Acc, Op>& op, const G& sg, index_t K, index_t R, Acc* out, stream_ref) {
    host::parallel_n(K, [&](index_t seg) {
      const index_t i0 = seg * R;
      Acc acc = sg.value(i0);
      out[sg.out_offset(i0)] = acc;
      for (index_t i = i0 + 1; i < i0 + R; ++i) {
        acc = op(acc, sg.value(i));
        out[sg.out_offset(i)] = acc;
      }
    });
  }
};

}  // namespace ufunc::detail
