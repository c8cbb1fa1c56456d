// Host backend of argmin_k / argmax_k / min_k / max_k (select_k.hpp): each
// output's K best (value, index) pairs in a sorted list (select_k_list.hpp),
// every element tested against the list's last entry with one comparison and
// inserted in the rare case it comes before it. A work item takes a block of
// outputs and passes over the reduced range in tiles, every output of the
// block over one tile before the next, so that a pairwise layout's y_j tile (a
// few KB) stays in L1 while the block's x_i read it. Pairwise layouts
// (pairwise_plan.hpp) go by groups of 16 outputs that share each y_j read, as
// the pairwise reductions' host loops (reduce_pairwise.hpp's lanes): the
// group's 16 values of one j are computed in a loop compiled per instruction
// set (simd.hpp) and tested together, and only a group with a candidate takes
// the scalar inserts. Other layouts read each element through the source.
// When the blocks of outputs are too few to share among threads, the range is
// also cut into chunks (a work item per block and chunk), whose lists are
// merged per output afterwards. No temporary but those partial lists
// (outputs x chunks x K entries, at most max_entries).
#pragma once

#include <algorithm>
#include <cstddef>
#include <utility>

#include <cuda/std/tuple>

#include "../../config.hpp"
#include "../../stream.hpp"
#include "../pairwise_plan.hpp"
#include "../select_k_list.hpp"
#include "../select_k_plan.hpp"
#include "parallel.hpp"
#include "reduce_pairwise.hpp"  // make_pair_lanes
#include "simd.hpp"
#include "temp.hpp"

namespace ufunc::detail {

template <class Target>
struct select_k_backend;

struct select_k_host_tuning {
  static constexpr index_t block = 32;       // outputs per work item
  static constexpr int group = 16;           // pairwise layouts: outputs sharing each y_j read
  static constexpr index_t tile = 512;       // elements per pass of the block's outputs (a few KB per input: L1)
  static constexpr index_t want_items = 64;  // split rows until there are this many work items (any thread count)
  static constexpr index_t min_chunk = 2048;
  static constexpr index_t max_entries = index_t(1) << 18;
};

template <>
struct select_k_backend<target::host> {
  /// For each output o in [0, nout) of src (R >= K elements each: src.at(base,
  /// r)), the K first (value, index) pairs in the order of select_order<V,
  /// Largest>, into idx[o * K + s] (and vals, when not null).
  template <int K, bool Largest, class Src, class V>
  static void run(const Src& src, index_t nout, index_t R, V* vals, index_t* idx, stream_ref) {
    using tu = select_k_host_tuning;
    using order = select_order<V, Largest>;
    using list_t = k_list<V, K, index_t>;
    const select_k_split_limits lim{tu::block, tu::want_items, tu::min_chunk, 1, index_t(1) << 62, tu::max_entries};
    const select_k_split sp = plan_select_k_split(nout, R, K, lim);
    const index_t nblocks = (nout + tu::block - 1) / tu::block;
    const bool split = sp.chunks > 1;
    bool pairwise = false;
    if constexpr (pairwise_candidate<Src>::value) pairwise = pairwise_jmask(src) != 0;
    // Partial lists of a split row (chunk c of output o at (c * nout + o) * K).
    const index_t nparts = split ? sp.chunks * nout * K : 0;
    host::host_temp<V> pv(nparts);
    host::host_temp<index_t> pi(nparts);
    host::parallel_n(nblocks * sp.chunks, [&](index_t item) {
      const index_t b = item % nblocks, c = item / nblocks;
      const index_t o0 = b * tu::block, w = std::min(tu::block, nout - o0);
      const index_t r0 = c * sp.chunk_len, r1 = std::min(R, r0 + sp.chunk_len);
      list_t lists[tu::block];
      typename Src::base_t base[tu::block];
      for (index_t u = 0; u < w; ++u) {
        lists[u].template clear<order>();
        base[u] = src.base(o0 + u);
      }
      for (index_t jt = r0; jt < r1; jt += tu::tile) {
        const index_t je = std::min(r1, jt + tu::tile);
        if (pairwise) {
          for (index_t g0 = 0; g0 < w; g0 += tu::group)
            pair_group<order>(src, o0 + g0, std::min<index_t>(tu::group, w - g0), jt, je - jt, lists + g0);
          continue;
        }
        for (index_t u = 0; u < w; ++u) {
          list_t& l = lists[u];
          V worst = l.worst();
          for (index_t r = jt; r < je; ++r) {
            const V v = static_cast<V>(src.at(base[u], r));
            if (order::may_enter(v, worst) && l.template insert<order>(v, r)) worst = l.worst();
          }
        }
      }
      for (index_t u = 0; u < w; ++u) {
        if (split)
          store_k_list(lists[u], &pv[0], &pi[0], (c * nout + o0 + u) * K, 0, true);
        else
          store_k_list(lists[u], vals, idx, (o0 + u) * K, 0, false);
      }
    });
    if (!split) return;
    // Each output's chunk lists merged: a list is sorted, so once one of its
    // entries stays out, the rest do too.
    host::parallel_n(nblocks, [&](index_t b) {
      const index_t o0 = b * tu::block, o1 = std::min(nout, o0 + tu::block);
      for (index_t o = o0; o < o1; ++o) {
        list_t l;
        l.template clear<order>();
        for (index_t c = 0; c < sp.chunks; ++c) {
          const index_t at = (c * nout + o) * K;
          for (int s = 0; s < K; ++s)
            if (!l.template insert<order>(pv[at + s], pi[at + s])) break;
        }
        store_k_list(l, vals, idx, o * K, 0, false);
      }
    });
  }

  /// Elements [jt, jt + jn) of the nu (<= group) outputs from o into their lists.
  template <class Order, class Src, class List>
  static void pair_group(const Src& src, index_t o, index_t nu, index_t jt, index_t jn, List* lists) {
    using Ins = std::decay_t<decltype(src.ins)>;
    using seq = std::make_index_sequence<cuda::std::tuple_size<Ins>::value>;
    constexpr int G = select_k_host_tuning::group;
    const auto ln = host::make_pair_lanes(src, o, jt, seq{});
    if (nu == G)
      host::simd_run([&]() UFUNC_HOST_INLINE { pair_pass<Order, G, true>(src, ln, G, jt, jn, lists, seq{}); });
    else
      pair_pass<Order, G, false>(src, ln, nu, jt, jn, lists, seq{});
  }

  /// For each element jj: the group's G values (slot u is output u, the last
  /// one repeated past nu), one test of all of them against their lists' last
  /// values, and the inserts of the few that pass.
  template <class Order, int G, bool Full, class Src, class Lanes, class List, std::size_t... I>
  UFUNC_HOST_INLINE static inline void pair_pass(const Src& src, const Lanes& ln, index_t nu, index_t jt, index_t jn,
                                                 List* lists, std::index_sequence<I...>) {
    using V = std::decay_t<decltype(lists[0].v[0])>;
    V worst[G];
    index_t iu[G];
    for (int u = 0; u < G; ++u) {
      iu[u] = std::min<index_t>(u, nu - 1);
      worst[u] = lists[iu[u]].worst();
    }
    for (index_t jj = 0; jj < jn; ++jj) {
      V v[G];
      if constexpr (Full) {
        for (int u = 0; u < G; ++u) v[u] = static_cast<V>(src.map(cuda::std::get<I>(ln).get(u, jj)...));
      } else {
        for (int u = 0; u < G; ++u) v[u] = static_cast<V>(src.map(cuda::std::get<I>(ln).get(iu[u], jj)...));
      }
      int any = 0;
      for (int u = 0; u < G; ++u) any |= Order::may_enter(v[u], worst[u]) ? 1 : 0;
      if (!any) continue;
      for (index_t u = 0; u < nu; ++u)
        if (Order::may_enter(v[u], worst[u]) && lists[u].template insert<Order>(v[u], jt + jj)) worst[u] = lists[u].worst();
    }
  }
};

}  // namespace ufunc::detail
