// What the row kernels (reduce_rows, reduce_warps) share: one thread's part of
// one output's reduced range, read in slots of V adjacent elements.
#pragma once

#include <type_traits>

#include "../../reduce_source.hpp"
#include "../wide_sum.hpp"
#include "grid_dependency.cuh"

namespace ufunc::detail {

/// Folds slots q0, q0 + step, ... of the range [r0, r1) of row `w` (src.row(o);
/// slot q is elements r0 + q V ..) into `acc`; `have` says whether acc holds a
/// value yet. Rounds of U slots: the full slots' loads (one V-wide load each)
/// are issued together, predicated at the range's end, then folded in slot
/// order; a last, partial slot is read element by element. No identity is
/// needed. Elements are folded in increasing index order (combine_in_order
/// relies on it). One accumulator per lane instead (V independent chains)
/// measured slower for argmax on an H100 (0.57-0.64 of peak against 0.71-0.75):
/// the registers it takes cost more resident blocks than the chains gain.
template <int U, int V, class Src, class W, class Op, class Acc>
__device__ __forceinline__ void fold_slots(const Src& src, const W& w, const Op& op, index_t r0, index_t r1,
                                           index_t q0, index_t step, Acc& acc, bool& have) {
  const index_t n = r1 - r0, nslots = (n + V - 1) / V, nfull = n / V;
  auto add = [&](const Acc& x) {
    acc = have ? combine_in_order(op, acc, x) : x;
    have = true;
  };
  // Vector slots hold Src::fold_type (argmin/argmax: the bare values, lifted
  // with their indices only as they are folded).
  using F = std::conditional_t<(V > 1), typename Src::fold_type, Acc>;
  auto load = [&](F(&x)[V], index_t qu) {
    if constexpr (V == 1)
      x[0] = src.at_row(w, r0 + qu);
    else
      src.template at_row_vec_fold<V>(w, r0 + qu * V, x);
  };
  for (index_t q = q0; q < nslots; q += U * step) {
    F v[U][V];
    // A whole round without a branch per slot: a map applied to each slot's
    // values (x * 2, x * y) then sits in the same block as all the loads and
    // waits for them there. In per-slot branches it waited for its own slot's
    // load before the next slot's was issued: one load in flight, not U (H200,
    // sum(lazy(X) * 2, axis 1) 0.82 of the read kernel; bench/NOTES.md, session 26).
    if (q + (U - 1) * step < nfull) {
#pragma unroll
      for (int u = 0; u < U; ++u) load(v[u], q + u * step);
    } else {
#pragma unroll
      for (int u = 0; u < U; ++u)
        if (q + u * step < nfull) load(v[u], q + u * step);
    }
    if constexpr (V > 1 && is_wide_source<Src>::value) {
      // A widened sum: the round's full slots added in the narrow type, in
      // order (at most U V - 1 roundings), widened once; a partial slot as below.
      using N = decltype(src.inner.lift_fold(v[0][0], r0));
      N t{};
      bool any = false;
#pragma unroll
      for (int u = 0; u < U; ++u) {
        const index_t qu = q + u * step;
        if (qu < nfull) {
#pragma unroll
          for (int j = 0; j < V; ++j) {
            const N x = src.inner.lift_fold(v[u][j], r0 + qu * V + j);
            t = any ? static_cast<N>(t + x) : x;
            any = true;
          }
        }
      }
      if (any) add(Src::ws::widen(t));
#pragma unroll
      for (int u = 0; u < U; ++u) {
        const index_t qu = q + u * step;
        if (qu >= nfull && qu < nslots)
          for (index_t e = r0 + qu * V; e < r1; ++e) add(src.at_row(w, e));
      }
    } else {
#pragma unroll
      for (int u = 0; u < U; ++u) {
        const index_t qu = q + u * step;
        if (qu < nfull) {
#pragma unroll
          for (int j = 0; j < V; ++j) {
            if constexpr (V == 1)
              add(v[u][j]);
            else
              add(src.lift_fold(v[u][j], r0 + qu * V + j));
          }
        } else if (qu < nslots) {
          for (index_t e = r0 + qu * V; e < r1; ++e) add(src.at_row(w, e));
        }
      }
    }
  }
}

}  // namespace ufunc::detail
