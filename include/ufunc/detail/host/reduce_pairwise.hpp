// Host engine for pairwise reductions (layout: pairwise_plan.hpp): out[i] = op
// over j of map(x_i, y_j, b_j, ...), a kernel sum or a nearest-neighbour search
// over K x R pairs. The general host loops re-read every y_j from memory for
// each output; here the outputs go in blocks (one work item each, so results do
// not depend on the thread count), the j range in tiles that stay in L1 while
// every output of the block passes over them, and a group of outputs shares
// each y_j it reads (independent accumulator chains, as the GPU kernel's
// several outputs per thread). A full group's loop over its outputs is
// vectorised (one lane per output: the y_j loads broadcast, the x_i loads
// strided) and compiled per instruction set (simd.hpp); each output's chain is
// unchanged, so the bits are the same on every set and in the partial group.
//
// Order per output (documented in docs/ARCHITECTURE.md): j in runs of
// pairwise_host_tuning::run elements, each run folded serially in index order;
// the runs' partials combined as a binary counter (level L holds 2^L runs, the
// earlier partial on the left), so a float sum's rounding error grows like
// run + log2(R / run), not like R; the order of the elements is kept, so
// associative ops without identity or commutativity work too.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <utility>

#include <cuda/std/tuple>

#include "../pairwise_plan.hpp"
#include "../reduce_source.hpp"
#include "elementwise.hpp"  // chunk
#include "parallel.hpp"
#include "simd.hpp"
#include "temp.hpp"

namespace ufunc::detail::host {

struct pairwise_host_tuning {
  static constexpr index_t min_outputs = 16;  // fewer: the general loops (parallel over each output)
  static constexpr index_t block = 64;        // outputs per work item (fewer to feed every thread; more for short j ranges)
  static constexpr int group = 16;      // outputs that share each y_j read (independent chains; one AVX-512 vector)
  static constexpr index_t tile = 512;  // j per pass of the block's groups (a few KB per input: L1)
  static constexpr index_t run = 32;    // j folded serially per output before joining the cascade
  static_assert(tile % run == 0, "runs must not straddle tiles: every output counts the same runs");
};

/// Input k of a pairwise reduction as the inner loop reads it: the value for
/// output slot u (of a group) and element jj (of a tile) is p[iu * su + jj * sj],
/// with su = 0 for inputs moving along j and sj = 0 for inputs moving along i.
/// Roles are run-time values, so one loop serves every layout of a call site.
template <class Op, bool = Op::is_array, bool = is_computed_v<Op>>
struct pair_lane {
  using T = typename Op::value_type;
  const T* p = nullptr;
  index_t su = 0, sj = 0;
  T get(index_t iu, index_t jj) const { return p[iu * su + jj * sj]; }
};
/// A computed input (a lazy random leaf): its element at the same offset, made.
template <class Op>
struct pair_lane<Op, true, true> {
  Op op{};
  index_t su = 0, sj = 0;
  auto get(index_t iu, index_t jj) const { return op.load(iu * su + jj * sj); }
};
/// A broadcast value (a scalar argument) is the same for every pair.
template <class Op>
struct pair_lane<Op, false, false> {
  Op op;
  auto get(index_t, index_t) const { return op.load(index_t(0)); }
};

template <class Ins>
struct pair_lanes;
template <class... Ops>
struct pair_lanes<cuda::std::tuple<Ops...>> {
  using type = cuda::std::tuple<pair_lane<Ops>...>;
};

/// Lanes for the outputs from `o` on and the elements from `j` on.
template <class Src, std::size_t... K>
auto make_pair_lanes(const Src& src, index_t o, index_t j, std::index_sequence<K...>) {
  using Ins = std::decay_t<decltype(src.ins)>;
  typename pair_lanes<Ins>::type ln;
  auto one = [&](auto kc, auto& lane) {
    constexpr std::size_t k = decltype(kc)::value;
    const auto& in = cuda::std::get<k>(src.ins);
    if constexpr (std::decay_t<decltype(in)>::is_array) {
      const index_t ks = src.kept.strides[k][0], rs = src.red.strides[k][0];  // one of them is 0
      if constexpr (is_computed_v<std::decay_t<decltype(in)>>)
        lane.op = in.rebased(o * ks + j * rs);
      else
        lane.p = in.p + o * ks + j * rs;
      lane.su = ks;
      lane.sj = rs;
    } else {
      lane.op = in;
    }
  };
  (one(std::integral_constant<std::size_t, K>{}, cuda::std::get<K>(ln)), ...);
  return ln;
}

/// acc[u] = the fold of elements [jj0, jj1) (jj0 < jj1, tile-relative; j0 + jj
/// is the element's index) of group slot u, in index order: a full group (slot u
/// is output u), written so that the loop over u vectorises (no index array: GCC
/// does not vectorise loads through one).
template <int G, class Src, class Lanes, class Op, class Acc, std::size_t... K>
UFUNC_HOST_INLINE inline void pair_fold_run_full(const Src& src, const Lanes& ln, index_t j0, index_t jj0, index_t jj1,
                                                 const Op& op, Acc* acc, std::index_sequence<K...>) {
  for (int u = 0; u < G; ++u) acc[u] = src.lift(src.map(cuda::std::get<K>(ln).get(u, jj0)...), j0 + jj0);
  for (index_t jj = jj0 + 1; jj < jj1; ++jj)
    for (int u = 0; u < G; ++u)
      acc[u] = combine_in_order(op, acc[u], src.lift(src.map(cuda::std::get<K>(ln).get(u, jj)...), j0 + jj));
}

/// The same for a partial group: slot u is output iu[u] (the last one repeated).
template <int G, class Src, class Lanes, class Op, class Acc, std::size_t... K>
void pair_fold_run(const Src& src, const Lanes& ln, const index_t* iu, index_t j0, index_t jj0, index_t jj1,
                   const Op& op, Acc* acc, std::index_sequence<K...>) {
  for (int u = 0; u < G; ++u) acc[u] = src.lift(src.map(cuda::std::get<K>(ln).get(iu[u], jj0)...), j0 + jj0);
  for (index_t jj = jj0 + 1; jj < jj1; ++jj)
    for (int u = 0; u < G; ++u)
      acc[u] = combine_in_order(op, acc[u], src.lift(src.map(cuda::std::get<K>(ln).get(iu[u], jj)...), j0 + jj));
}

/// out[o] = tail(reduction over j of src's element (o, j)) for o in [0, K),
/// j in [0, R), R >= 1, when src has a pairwise layout (pairwise_jmask != 0).
/// Returns false, having done nothing, for any other layout.
template <class Src, class Op, class Tail, class Res>
bool reduce_pairwise(const Src& src, index_t K, index_t R, const Op& op, const Tail& tail, Res* out) {
  using tu = pairwise_host_tuning;
  using Acc = typename Src::acc_type;
  using Ins = std::decay_t<decltype(src.ins)>;
  constexpr int G = tu::group;
  constexpr std::size_t nin = cuda::std::tuple_size<Ins>::value;
  using seq = std::make_index_sequence<nin>;
  // A fixed threshold, not one from the thread count: which engine runs decides
  // the rounding of a sum, and results must not depend on the thread count.
  if (K < tu::min_outputs || pairwise_jmask(src) == 0) return false;

  const index_t nruns = (R + tu::run - 1) / tu::run;
  std::size_t nlev = 1;  // levels 0..nlev-1 hold the counter's bits: 2^nlev > nruns
  while ((index_t(1) << nlev) <= nruns) ++nlev;
  // Each thread's levels, allocated here (through the library's allocator and
  // before any output is written, as the column path of reduce()).
  // Outputs per work item (a multiple of the group): up to `block`, fewer so
  // that every thread gets about four items, but at least `chunk` pairs per item
  // (as the general loops: smaller items cost more in scheduling than they
  // save). Each output's order of operations depends on neither this nor the
  // tile, so the results do not depend on the thread count.
  const index_t threads = parallel_slots();
  auto round_g = [](index_t b) { return (b + G - 1) / G * G; };
  index_t blk = std::clamp<index_t>(round_g((K + 4 * threads - 1) / (4 * threads)), G, tu::block);
  blk = std::max(blk, round_g((chunk + R - 1) / R));
  const index_t nitems = (K + blk - 1) / blk;
  const index_t per_slot = static_cast<index_t>(nlev) * blk;
  const index_t nslots = nitems == 1 ? 1 : threads;
  host_temp<Acc> stores(nslots * per_slot);
  parallel_n_slots(nitems, [&](index_t c, int slot) {
    const index_t o0 = c * blk, w = std::min(blk, K - o0);
    Acc* const lev = &stores[static_cast<index_t>(slot) * per_slot];  // level L of output l: lev[L * blk + l]
    std::uint64_t full = 0;  // runs folded so far: bit L set when level L holds a partial
    for (index_t jt = 0; jt < R; jt += tu::tile) {
      const index_t jn = std::min(tu::tile, R - jt);
      const std::uint64_t full0 = full;
      for (index_t g0 = 0; g0 < w; g0 += G) {
        // A group past the block's end repeats its last output (computed, not stored).
        const index_t nu = std::min<index_t>(G, w - g0);
        index_t iu[G];
        for (int u = 0; u < G; ++u) iu[u] = std::min<index_t>(u, nu - 1);
        const auto ln = make_pair_lanes(src, o0 + g0, jt, seq{});
        full = full0;
        // Binary counter: carry through the full levels, earlier partials on the left.
        const auto carry = [&](Acc* acc) UFUNC_HOST_INLINE {
          std::size_t L = 0;
          for (; (full >> L) & 1u; ++L)
            for (index_t u = 0; u < nu; ++u) acc[u] = op(lev[static_cast<index_t>(L) * blk + g0 + u], acc[u]);
          for (index_t u = 0; u < nu; ++u) lev[static_cast<index_t>(L) * blk + g0 + u] = acc[u];
          ++full;
        };
        if (nu == G) {
          simd_run([&]() UFUNC_HOST_INLINE {
            for (index_t r0 = 0; r0 < jn; r0 += tu::run) {
              Acc acc[G];
              pair_fold_run_full<G>(src, ln, jt, r0, std::min(jn, r0 + tu::run), op, acc, seq{});
              carry(acc);
            }
          });
        } else {
          for (index_t r0 = 0; r0 < jn; r0 += tu::run) {
            Acc acc[G];
            pair_fold_run<G>(src, ln, iu, jt, r0, std::min(jn, r0 + tu::run), op, acc, seq{});
            carry(acc);
          }
        }
      }
    }
    // The levels left, from the oldest (highest) down: the tail of the tree.
    for (index_t l = 0; l < w; ++l) {
      Acc res{};
      bool have = false;
      for (std::size_t L = nlev; L-- > 0;)
        if ((full >> L) & 1u) {
          const Acc& v = lev[static_cast<index_t>(L) * blk + l];
          res = have ? op(res, v) : v;
          have = true;
        }
      out[o0 + l] = static_cast<Res>(tail(res));
    }
  });
  return true;
}

}  // namespace ufunc::detail::host
