// CUDA backend of argmin_k / argmax_k / min_k / max_k (select_k.hpp): the
// tiled pairwise kernel (kernels/select_k_pairwise.cuh) where the layout is
// pairwise (pairwise_plan.hpp: x_i along the outputs' axis, y_j along the
// reduced one), the general kernel (kernels/select_k_general.cuh) otherwise;
// each output's K best pairs in registers. When the blocks of outputs cannot
// fill the GPU, rows are cut into chunks (select_k_plan.hpp) and the chunks'
// lists merged by a second kernel (kernels/select_k_merge.cuh). Memory: the
// partial lists of a split, at most select_k_cuda_tuning::max_entries entries
// of (value, index_t) (48 MB for float), none without a split.
#pragma once

#include <algorithm>
#include <climits>
#include <cstddef>
#include <cstdint>
#include <utility>

#include "../../error.hpp"
#include "../../stream.hpp"
#include "../pairwise_plan.hpp"
#include "../select_k_plan.hpp"
#include "launch.hpp"
#include "scratch.hpp"

#if defined(__CUDACC__)
#  include "kernels/select_k_general.cuh"
#  include "kernels/select_k_merge.cuh"
#  include "kernels/select_k_pairwise.cuh"
#endif

namespace ufunc::detail {

template <class Target>
struct select_k_backend;

struct select_k_cuda_tuning {
  static constexpr index_t min_chunk = 1024;                      // elements; 4 tiles of the pairwise kernel
  static constexpr index_t max_chunk = index_t(1) << 30;          // chunk-relative indices are 32-bit
  static constexpr index_t max_entries = index_t(1) << 22;        // partial (value, index) entries of a split
  static constexpr int merge_block = 128;
};

template <>
struct select_k_backend<target::cuda> {
  /// For each output o in [0, nout) of src (R >= K elements each), the K first
  /// (value, index) pairs in the order of select_order<V, Largest>, into
  /// idx[o * K + s] (and vals, when not null); enqueued on s.
  template <int K, bool Largest, class Src, class V>
  static void run(const Src& src, index_t nout, index_t R, V* vals, index_t* idx, stream_ref s) {
#if defined(__CUDACC__)
    if constexpr (pairwise_candidate<Src>::value)
      if (run_pairwise<K, Largest>(src, nout, R, vals, idx, s)) return;
    run_general<K, Largest>(src, nout, R, vals, idx, s);
#else
    (void)src, (void)nout, (void)R, (void)vals, (void)idx, (void)s;
    cuda_launch::require_nvcc<Src>();
#endif
  }

#if defined(__CUDACC__)
  /// The chunk plan of a kernel: `per_block` outputs a block, as many blocks as
  /// are resident on the GPU at once.
  static select_k_split plan(index_t nout, index_t R, int k, index_t per_block, int resident, index_t align) {
    const select_k_split_limits lim{per_block, index_t(cuda_launch::sm_count()) * resident,
                                    select_k_cuda_tuning::min_chunk, align, select_k_cuda_tuning::max_chunk,
                                    select_k_cuda_tuning::max_entries};
    return plan_select_k_split(nout, R, k, lim);
  }

  /// Runs `launch(out_v, out_i, partial)` into the results, or into partial
  /// lists then merged.
  template <int K, bool Largest, class V, class Launch>
  static void with_partials(const select_k_split& sp, index_t nout, V* vals, index_t* idx, stream_ref s,
                            const Launch& launch) {
    if (sp.chunks == 1) {
      launch(vals, idx, false);
      return;
    }
    const std::size_t n = static_cast<std::size_t>(sp.chunks * nout * K);
    device_temp pv(sizeof(V) * n, s), pi(sizeof(index_t) * n, s);
    launch(static_cast<V*>(pv.get()), static_cast<index_t*>(pi.get()), true);
    constexpr int B = select_k_cuda_tuning::merge_block;
    auto* merge = select_k_merge_kernel<B, K, Largest, V>;
    const index_t blocks = std::min<index_t>((nout + B - 1) / B, index_t(cuda_launch::sm_count()) * 32);
    merge<<<static_cast<unsigned>(blocks), B, 0, s.get()>>>(static_cast<const V*>(pv.get()),
                                                          static_cast<const index_t*>(pi.get()), vals, idx, nout,
                                                          sp.chunks);
    UFUNC_CHECK_LAUNCH("select_k_merge_kernel", s.get());
  }

  /// A pairwise layout: the tiled kernel. Returns false, with nothing
  /// enqueued, for any other layout.
  template <int K, bool Largest, class Src, class V>
  static bool run_pairwise(const Src& src, index_t nout, index_t R, V* vals, index_t* idx, stream_ref s) {
    using tu = select_k_pairwise_tuning;
    using Ins = bare_t<decltype(src.ins)>;
    const unsigned jmask = pairwise_jmask(src);  // the layout test (pairwise_plan.hpp)
    if (jmask == 0) return false;
    constexpr int B = tu::block, IPT = tu::template outputs_per_thread<K>;
    constexpr std::size_t nin = cuda::std::tuple_size<Ins>::value;
    auto* kernel = pick_pairwise_kernel<B, IPT, K, Largest, Src, V>(jmask, std::make_index_sequence<nin>{});
    const index_t xblocks = (nout + index_t(B) * IPT - 1) / (index_t(B) * IPT);
    if (xblocks > INT_MAX) return false;
    const select_k_split sp = plan(nout, R, K, index_t(B) * IPT, cuda_launch::resident_blocks(kernel, B), tu::tile);
    if (sp.chunks > 65535) return false;
    const dim3 grid(static_cast<unsigned>(xblocks), static_cast<unsigned>(sp.chunks));
    with_partials<K, Largest>(sp, nout, vals, idx, s, [&](V* ov, index_t* oi, bool partial) {
      kernel<<<grid, B, 0, s.get()>>>(src, ov, oi, nout, R, sp.chunk_len, jmask, partial);
      UFUNC_CHECK_LAUNCH("select_k_pairwise_kernel", s.get());
    });
    return true;
  }

  /// Fixed roles where the layout has one of the usual patterns (the x_i
  /// inputs first, then the y_j: reduce's pick_pairwise_kernel), else roles
  /// read at run time.
  template <int B, int IPT, int K, bool Largest, class Src, class V, std::size_t... S>
  static auto pick_pairwise_kernel(unsigned jmask, std::index_sequence<S...>) {
    auto* kernel = select_k_pairwise_kernel<B, IPT, K, Largest, pair_runtime_mask, Src, V>;
    bool found = false;
    auto consider = [&](auto mask_c) {
      constexpr unsigned mask = decltype(mask_c)::value;
      if constexpr (mask != 0 && mask != pair_runtime_mask)
        if (!found && jmask == mask) {
          kernel = select_k_pairwise_kernel<B, IPT, K, Largest, mask, Src, V>;
          found = true;
        }
    };
    if constexpr (sizeof...(S) <= 8)
      (consider(std::integral_constant<unsigned, pair_fixed_mask<Src, S>>{}), ...);
    return kernel;
  }

  /// Any layout: one thread per output and chunk.
  template <int K, bool Largest, class Src, class V>
  static void run_general(const Src& src, index_t nout, index_t R, V* vals, index_t* idx, stream_ref s) {
    constexpr int B = select_k_general_tuning::block;
    auto* kernel = select_k_general_kernel<B, K, Largest, Src, V>;
    const int resident = cuda_launch::resident_blocks(kernel, B);
    const select_k_split sp = plan(nout, R, K, B, resident, 32);
    const index_t items = nout * sp.chunks;
    const index_t blocks = std::min<index_t>((items + B - 1) / B, index_t(cuda_launch::sm_count()) * resident * 8);
    with_partials<K, Largest>(sp, nout, vals, idx, s, [&](V* ov, index_t* oi, bool partial) {
      kernel<<<static_cast<unsigned>(blocks), B, 0, s.get()>>>(src, ov, oi, nout, R, sp.chunk_len, sp.chunks, partial);
      UFUNC_CHECK_LAUNCH("select_k_general_kernel", s.get());
    });
  }
#endif
};

}  // namespace ufunc::detail
