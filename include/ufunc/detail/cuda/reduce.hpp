// CUDA backend of the reduction engine: CUB's device-wide reduction for one
// output of a contiguous input; the row, short-row and column kernels for many
// outputs (and for strided whole reductions), with a split of the reduced range
// and a second pass when the outputs alone cannot fill the GPU.
#pragma once

#include <algorithm>
#include <climits>
#include <cstddef>
#include <cstring>
#include <optional>
#include <utility>
#include <stdexcept>

#include "../../error.hpp"
#include "../../stream.hpp"
#include "../pairwise_plan.hpp"
#include "../reduce_job.hpp"
#include "launch.hpp"
#include "scratch.hpp"

#if defined(__CUDACC__)
#  include "kernels/reduce_all.cuh"
#  include "kernels/reduce_arg_dense.cuh"
#  include "kernels/reduce_columns.cuh"
#  include "kernels/reduce_made.cuh"
#  include "kernels/reduce_pairwise.cuh"
#  include "kernels/reduce_rows.cuh"
#  include "kernels/reduce_warps.cuh"
#  include "wide_sum.hpp"
#endif

namespace ufunc::detail {

template <class Target>
struct reduce_backend;

/// A map_source of several array inputs (none computed) and a map without the
/// index: reduce_backend::run_all_inputs's sources.
template <class Src, class = void>
struct several_array_inputs : std::false_type {};
template <class Src>
struct several_array_inputs<Src, std::void_t<decltype(Src::pointers_candidate)>>
    : std::bool_constant<Src::pointers_candidate && !Src::has_computed> {};

template <>
struct reduce_backend<target::cuda> {
  /// out[0..K) = the K reductions (R >= 1), enqueued on s. Float and double
  /// sums run widened (wide_sum.hpp) on every engine but the pairwise kernel,
  /// whose tiles and cascade bound the serial runs already.
  template <class Job, class Res>
  static void run(const Job& j, Res* out, stream_ref s) {
#if defined(__CUDACC__)
    if constexpr (job_widens<Job>::value) {
      using Src = bare_t<decltype(j.src)>;
      if constexpr (pairwise_candidate<Src>::value)
        if (run_pairwise(j, out, s)) return;
      using WJ = wide_job<Job>;
      const typename WJ::source ws(j.src);
      run_engines(WJ::make(j, ws), out, s);
    } else {
      run_engines(j, out, s);
    }
#else
    (void)j, (void)out, (void)s;
    cuda_launch::require_nvcc<Job>();
#endif
  }

  /// The single reduction (K == 1) returned to the caller: the result (and CUB's
  /// temporaries) live in the per-thread scratch block, the value comes back
  /// through pinned memory, and the stream is synchronised.
  template <class Res, class Job>
  static Res to_host(const Job& j, stream_ref s) {
#if defined(__CUDACC__)
    const Res* slot = enqueue_to_host<Res>(j, s);
    UFUNC_CUDA_CHECK(cudaStreamSynchronize(s.get()));
    return *slot;
#else
    (void)j, (void)s;
    cuda_launch::require_nvcc<Job>();
    return Res{};
#endif
  }

  static constexpr bool defers_values = true;
  /// to_host without the wait: the value will be in the returned pinned slot
  /// (this thread's, for the current device) once `s` is synchronised, until
  /// the next reduction to a host value on this thread and device (which
  /// reuses the slot and the scratch block: the caller waits for `s` first).
  template <class Res, class Job>
  static const Res* enqueue_to_host(const Job& j, stream_ref s) {
#if defined(__CUDACC__)
    if constexpr (job_widens<Job>::value) {
      using WJ = wide_job<Job>;
      const typename WJ::source ws(j.src);
      return to_host_engines<Res>(WJ::make(j, ws), s);
    } else {
      return to_host_engines<Res>(j, s);
    }
#else
    (void)j, (void)s;
    cuda_launch::require_nvcc<Job>();
    return nullptr;
#endif
  }

#if defined(__CUDACC__)
  template <class Job, class Res>
  static void run_engines(const Job& j, Res* out, stream_ref s) {
    using Src = bare_t<decltype(j.src)>;
    if constexpr (Src::contiguous_candidate)
      if (j.g.K == 1 && pointer_path(j.g)) {
        run_all(j, out, s, nullptr);
        return;
      }
    if constexpr (Src::arg_pointer_candidate)
      if (j.g.K == 1 && pointer_path(j.g) && run_dense_arg(j, out, s)) return;
    if (run_all_inputs(j, out, s, nullptr)) return;
    if constexpr (!is_wide_source<Src>::value) {  // (a widened job tried it unwidened)
      if constexpr (pairwise_candidate<Src>::value)
        if (run_pairwise(j, out, s)) return;
    }
    if constexpr (made_source<Src>)
      if (j.g.K == 1) {
        run_made_whole(j.src, j.g.R, j.op, j.tail(), out, s);
        return;
      }
    run_split(j.src, j.g.K, j.g.R, j.g.rows_like, j.op, j.tail(), out, s);
  }

  template <class Res, class Job>
  static const Res* to_host_engines(const Job& j, stream_ref s) {
    using Src = bare_t<decltype(j.src)>;
    static_assert(sizeof(Res) <= result_slot);
    auto& scratch = reduce_scratch::get();
    bool via_cub = false;
    if constexpr (Src::contiguous_candidate) via_cub = pointer_path(j.g);
    if (via_cub) {
      if constexpr (Src::contiguous_candidate)
        run_all(j, static_cast<Res*>(nullptr), s, &scratch);
    } else if (run_all_inputs(j, static_cast<Res*>(nullptr), s, &scratch)) {
      // (several contiguous inputs: CUB, the result at the scratch block's start)
    } else if constexpr (!Src::dense) {
      // Strided, several inputs (but a sum's, above) or an index-using map: the row kernels (one
      // output, its range split over the GPU, then a pass over the partials).
      // A dense source is contiguous by its type and never comes here, which
      // keeps those kernels out of its call sites.
      Res* slot = static_cast<Res*>(scratch.device(result_slot, s));
      bool done = false;
      if constexpr (Src::arg_pointer_candidate) done = pointer_path(j.g) && run_dense_arg(j, slot, s);
      if (!done) {
        // A made source (lazy random leaves) takes its own kernel: the row
        // kernels are not compiled for such a call site's whole reductions.
        if constexpr (made_source<Src>)
          run_made_whole(j.src, j.g.R, j.op, j.tail(), slot, s);
        else
          run_split<true>(j.src, 1, j.g.R, j.g.rows_like, j.op, j.tail(), slot, s);
      }
      UFUNC_CUDA_CHECK(cudaMemcpyAsync(scratch.pinned(), slot, sizeof(Res), cudaMemcpyDeviceToHost, s.get()));
    } else {
      throw std::logic_error("ufunc internal error: a dense whole-array reduction has a strided layout");
    }
    return static_cast<const Res*>(scratch.pinned());
  }
#endif

#if defined(__CUDACC__)
  /// A whole reduction whose single input is contiguous: CUB reads it through a
  /// plain pointer.
  template <std::size_t NIN>
  static bool pointer_path(const reduce_geometry<NIN>& g) {
    return g.red.ndim == 0 || (g.red.ndim == 1 && g.red.strides[0][0] == 1);
  }

  /// One output of a contiguous input (pointer_path): CUB, with vectorised loads.
  /// (Float sums of several contiguous inputs: run_all_inputs.) Other whole
  /// reductions (several inputs, argmin/argmax, strides) take the row
  /// kernels (run_split with K = 1), which read every input with vector loads
  /// where the layout allows; each call site instantiates CUB once (32-bit
  /// offsets) or not at all. More items than cub_chunk_items() run as chunks
  /// of that many, one CUB call each, the same kernels: the last thread of each
  /// chunk keeps its result in a device slot (store_finished), the next chunk's
  /// folds it in, and the last chunk's finishes. A chunk's result is folded in
  /// on the device when the reduction starts from nothing (no init) or from
  /// the op's identity (then every chunk may start from it); another initial
  /// value is counted once: each chunk then starts from the previous chunk's
  /// result, read back to the host (the call waits for its stream between
  /// chunks). With `scratch`, the result goes to the start of the scratch block
  /// and is copied to its pinned slot (`out` is unused).
  template <class Job, class Res>
  static void run_all(const Job& j, Res* out, stream_ref s, reduce_scratch* scratch) {
    using Src = bare_t<decltype(j.src)>;
    static_assert(Src::contiguous_candidate);
    const auto& src = j.src;
    const index_t R = j.g.R;
    const auto* p = src.first_pointer();
    using T = bare_t<decltype(*p)>;
    if constexpr (is_wide_source<Src>::value && sizeof(T) >= 2 && sizeof(T) <= 8 && (sizeof(T) & (sizeof(T) - 1)) == 0) {
      using P = pack_tree_sum<T, bare_t<decltype(src.inner.map)>, bare_t<decltype(src.inner.lift)>,
                              typename Src::inner_acc>;
      constexpr index_t W = P::width;
      // Packs start at the first 16-byte boundary (a typed pointer is aligned
      // to its element); the h elements before it and those after the last
      // whole pack are added by the storing thread (pack_tail), so a misaligned
      // input compiles no second CUB reduction. Item i of a chunk: the pack of
      // elements h + [W (first + i), W (first + i + 1)).
      const auto mis = static_cast<index_t>(reinterpret_cast<std::uintptr_t>(p) % 16);
      const index_t h = std::min<index_t>(R, (16 - mis) % 16 / static_cast<index_t>(sizeof(T)));
      const index_t items = (R - h) / W;
      cub_chunks(
          j, out, s, scratch,
          [&](index_t f, index_t) {
            return std::make_pair(thrust::counting_iterator<index_t>(0),
                                  P{p + h + f * W, src.inner.map, src.inner.lift});
          },
          items, pack_tail<P>{P{p, src.inner.map, src.inner.lift}, h, h + items * W, R});
    } else {
      if constexpr (is_half_v<T>) {
        using P = pack_lift<T, bare_t<decltype(src.map)>, bare_t<decltype(src.lift)>, bare_t<decltype(j.op)>>;
        if (reinterpret_cast<std::uintptr_t>(p) % 16 == 0 && R >= index_t(P::width)) {
          cub_chunks(
              j, out, s, scratch,
              [&](index_t f, index_t n) {
                return std::make_pair(thrust::counting_iterator<index_t>(0),
                                      P{p + f * P::width, std::min(R - f * P::width, n * P::width), src.map, src.lift,
                                        j.op});
              },
              (R + P::width - 1) / P::width, no_tail{});
          return;
        }
      }
      using M = map_lift<bare_t<decltype(src.map)>, bare_t<decltype(src.lift)>>;
      cub_chunks(
          j, out, s, scratch, [&](index_t f, index_t) { return std::make_pair(p + f, M{src.map, src.lift}); }, R,
          no_tail{});
    }
  }

  /// A whole sum of a map over several array inputs (a dot product, a lazy
  /// expression of arrays), every one contiguous along the reduction and
  /// aligned for loads of W of its elements (W: 16 bytes of the widest input):
  /// CUB over items of W elements (pack_map_sum), as a contiguous input's sum.
  /// Returns false, with nothing enqueued, for any other layout (the row
  /// kernels then read it).
  template <class Job, class Res>
  static bool run_all_inputs(const Job& j, Res* out, stream_ref s, reduce_scratch* scratch) {
    using Src = bare_t<decltype(j.src)>;
    if constexpr (is_wide_source<Src>::value) {
      using In = bare_t<decltype(j.src.inner)>;
      if constexpr (several_array_inputs<In>::value) {
        const auto& in = j.src.inner;
        constexpr int W = In::vec_width;
        constexpr std::size_t NIN = cuda::std::tuple_size<bare_t<decltype(in.ins)>>::value;
        const index_t R = j.g.R;
        if (j.g.K != 1 || R < W || in.red.ndim > 1) return false;
        const auto b = in.base(0);
        bool ok = true;
        for (std::size_t k = 0; k < NIN; ++k) ok = ok && (in.red.ndim == 0 || in.red.strides[k][0] == 1);
        if (!ok || !in.vec_rows_ok(W)) return false;
        using P = pack_map_sum<W, typename Src::inner_acc, bare_t<decltype(in.map)>, bare_t<decltype(in.lift)>,
                               bare_t<decltype(in.ins)>, NIN>;
        P whole{in.map, in.lift, in.ins, {}};
        for (std::size_t k = 0; k < NIN; ++k) whole.off[k] = b.off[k];
        const index_t items = R / W;
        cub_chunks(
            j, out, s, scratch,
            [&](index_t f, index_t) {
              P part = whole;
              for (std::size_t k = 0; k < NIN; ++k) part.off[k] += f * W;
              return std::make_pair(thrust::counting_iterator<index_t>(0), part);
            },
            items, pack_tail<P>{whole, 0, items * W, R});
        return true;
      }
    }
    (void)j, (void)out, (void)s, (void)scratch;
    return false;
  }

  /// The CUB calls of a whole reduction: `make(first, count)` gives the CUB
  /// input and transform of items [first, first + count); `tail` is folded in
  /// by the last chunk's store (store_finished).
  template <class Job, class Res, class Make, class Tail>
  static void cub_chunks(const Job& j, Res* out, stream_ref s, reduce_scratch* scratch, const Make& make,
                         index_t items, const Tail& tail_elems) {
    constexpr bool HasInit = Job::has_init;
    const auto& op = j.op;
    const auto& fin = j.fin;
    {
      const index_t chunk = cub_chunk_items();
      const index_t nchunks = items <= chunk ? 1 : (items + chunk - 1) / chunk;
      const index_t first = std::min(items, chunk);
      // CUB's storage depends only on the item count and the device: its answer is
      // kept per call site and thread for the last count asked, so a call repeated
      // on the same size skips the size query (a dispatch without launches, about
      // 1 us of host time before the first launch).
      struct size_memo {
        int dev = -1;
        index_t items = -1;
        std::size_t bytes = 0;
      };
      thread_local size_memo memo;
      int dev = 0;
      UFUNC_CUDA_CHECK(cudaGetDevice(&dev));
      std::size_t bytes = 0;
      if (memo.dev == dev && memo.items == first) {
        bytes = memo.bytes;
      } else {
        const auto [in, xform] = make(0, first);
        UFUNC_CUDA_CHECK((cub_reduce_all<HasInit>(nullptr, bytes, in, xform, static_cast<int>(first), op, j.init, fin,
                                                  out, s.get(), chunk_step{}, tail_elems)));
        memo = size_memo{dev, first, bytes};
      }
      // CUB's storage, then (chunked) the carried result and a placeholder output.
      const std::size_t cub_bytes = (bytes + 255) / 256 * 256;
      const std::size_t total = cub_bytes + (nchunks > 1 ? 256 : 0);
      char* temp = nullptr;
      Res* final_out = out;
      // The stream's slot: its counter (below) and its reusable temporary.
      finish_counters::slot* slot = finish_counters::slot_of(s);
      std::optional<stream_temp> owned;
      if (scratch) {
        char* base = static_cast<char*>(scratch->device(result_slot + total, s));
        final_out = reinterpret_cast<Res*>(base);
        temp = base + result_slot;
      } else {
        owned.emplace(total, s, slot);
        temp = static_cast<char*>(owned->get());
      }
      // A whole reduction is one chunk: it neither folds nor keeps (carry and
      // placeholder, allocated only for several chunks, are then not touched).
      void* carry = temp + cub_bytes;
      Res* placeholder = reinterpret_cast<Res*>(temp + cub_bytes + 128);
      using Acc = bare_t<decltype(j.init)>;
      static_assert(sizeof(maybe<Acc>) <= 128 && sizeof(Res) <= 128);
      const bool on_device = nchunks == 1 || !HasInit || is_identity_init<bare_t<decltype(op.op)>>(j.init);
      Acc init = j.init;
      // A first pass of few blocks finishes the reduction itself, counting on
      // the stream's counter (none on a stream being captured: finish_counters;
      // none either where CUB's public call runs, which cannot use one).
#if defined(UFUNC_LEAN_CUB_REDUCE)
      unsigned* done = slot ? slot->counter : nullptr;
#else
      unsigned* done = nullptr;
#endif
      for (index_t c = 0; c < nchunks; ++c) {
        const index_t f = c * chunk, n = std::min(chunk, items - f);
        const bool last = c + 1 == nchunks;
        const auto [in, xform] = make(f, n);
        std::size_t b = bytes;
        const chunk_step step{carry, on_device && c > 0, last};
        UFUNC_CUDA_CHECK((cub_reduce_all<HasInit>(temp, b, in, xform, static_cast<int>(n), op, init, fin,
                                                  last ? final_out : placeholder, s.get(), step, tail_elems,
                                                  done)));
        if (!on_device && !last) {  // the next chunk starts from this one's result
          auto& host = reduce_scratch::get();
          UFUNC_CUDA_CHECK(cudaMemcpyAsync(host.pinned(), carry, sizeof(Acc), cudaMemcpyDeviceToHost, s.get()));
          UFUNC_CUDA_CHECK(cudaStreamSynchronize(s.get()));
          std::memcpy(static_cast<void*>(&init), host.pinned(), sizeof(Acc));
        }
      }
      if (scratch)
        UFUNC_CUDA_CHECK(cudaMemcpyAsync(scratch->pinned(), final_out, sizeof(Res), cudaMemcpyDeviceToHost, s.get()));
    }
  }

  /// argmin/argmax of one contiguous input, a whole reduction: the block-row
  /// kernel reading it through a plain pointer (dense_row_source), its blocks in
  /// one wave; its last block combines their partials (on a stream being
  /// captured, a second pass does: finish_counters). Returns false, with nothing
  /// enqueued, when the input is not aligned for vector loads (the general row
  /// kernels then read it). H100, argmax of 2^27 floats: 32 registers, 8 blocks
  /// per SM, the kernel at 0.89 of peak; the general row kernel (46 registers,
  /// 5 blocks) reached 0.80 at best. Two or four waves measured slower.
  template <class Job, class Res>
  static bool run_dense_arg(const Job& j, Res* out, stream_ref s) {
    const auto d = j.src.dense_rows();
    using D = bare_t<decltype(d)>;
    using Acc = typename D::acc_type;
    using Op = bare_t<decltype(j.op)>;
    constexpr int V = D::vec_width;
    if (reinterpret_cast<std::uintptr_t>(d.p) % (sizeof(*d.p) * V) != 0) return false;
    using tu = rows_reduce_tuning;
    constexpr int U = tu::template vec_unroll_for<typename D::fold_type, V>;
    const auto tail = j.tail();
    using store_t = store_result<bare_t<decltype(tail)>, Res, Acc>;
    const index_t R = j.g.R;
    const index_t want = cuda_launch::sm_count() *
                         cuda_launch::resident_blocks(reduce_arg_dense_kernel<tu::dense_block, U, V, D, Op, store_t>, tu::dense_block);
    index_t nchunks = std::clamp<index_t>(R / (index_t(tu::dense_block) * U * V), 1, want);
    nchunks = std::max<index_t>(nchunks, (R + (index_t(1) << 30) - 1) >> 30);  // the kernel's 32-bit offsets
    const index_t chunk_len = ((R + nchunks - 1) / nchunks + V - 1) / V * V;
    nchunks = (R + chunk_len - 1) / chunk_len;
    auto launch = [&](const store_t& store, unsigned* done) {
      reduce_arg_dense_kernel<tu::dense_block, U, V>
          <<<static_cast<unsigned>(nchunks), tu::dense_block, 0, s.get()>>>(d, j.op, store, R, chunk_len, done);
      UFUNC_CHECK_LAUNCH("reduce_arg_dense_kernel", s.get());
    };
    if (nchunks == 1) {
      launch(store_t{tail, out, nullptr}, nullptr);
      return true;
    }
    // The last block combines the partials where the stream has a counter
    // (through the counter's word where they pack: no partials in memory);
    // else (a stream being captured) a second pass does.
    finish_counters::slot* slot = finish_counters::slot_of(s);
    unsigned* done = slot ? slot->counter : nullptr;
    if (done && arg_packs<typename arg_fold<Op>::value_type>(R)) {
      launch(store_t{tail, out, nullptr}, done);
      return true;
    }
    stream_temp partials(sizeof(Acc) * static_cast<std::size_t>(nchunks), s, slot);
    Acc* p = static_cast<Acc*>(partials.get());
    launch(store_t{tail, out, p}, done);
    if (!done) finish_partials(p, 1, nchunks, j.op, tail, out, s);
    return true;
  }

  /// A pairwise reduction (one kept and one reduced dim after merging; every
  /// array input moving along one of them only, some along each; enough pairs):
  /// the tiled kernel (kernels/reduce_pairwise.cuh), with the reduced range split
  /// when the outputs alone cannot fill the GPU. Returns false, with nothing
  /// enqueued, for any other layout.
  template <class Job, class Res>
  static bool run_pairwise(const Job& j, Res* out, stream_ref s) {
    using tu = pairwise_reduce_tuning;
    const auto& src = j.src;
    using Src = bare_t<decltype(src)>;
    using Ins = bare_t<decltype(src.ins)>;
    using Acc = typename Src::acc_type;
    const index_t K = j.g.K, R = j.g.R;
    if (K < 64 || R < 256) return false;
    if (R / tu::tile >= (index_t(1) << (tu::levels - 1))) return false;
    const unsigned jmask = pairwise_jmask(src);  // the layout test (pairwise_plan.hpp)
    if (jmask == 0) return false;
    constexpr std::size_t nin = cuda::std::tuple_size<Ins>::value;

    const auto tail = j.tail();
    using store_t = store_result<bare_t<decltype(tail)>, Res, Acc>;
    constexpr int B = tu::block, IPT = tu::outputs_per_thread;
    using Op = bare_t<decltype(j.op)>;
    // Fixed roles where the layout has one of the instantiated patterns.
    auto* kernel = pick_pairwise_kernel<B, IPT, Src, Op, store_t>(jmask, std::make_index_sequence<nin>{});
    const index_t xblocks = (K + index_t(B) * IPT - 1) / (index_t(B) * IPT);
    const index_t want = index_t(cuda_launch::sm_count()) * cuda_launch::resident_blocks(kernel, B) * 2;
    index_t nchunks = 1;
    if (xblocks < want) nchunks = std::clamp<index_t>((want + xblocks - 1) / xblocks, 1, std::max<index_t>(1, R / (4 * tu::tile)));
    nchunks = std::min<index_t>(nchunks, 65535);
    const index_t chunk_len = ((R + nchunks - 1) / nchunks + tu::tile - 1) / tu::tile * tu::tile;
    nchunks = (R + chunk_len - 1) / chunk_len;
    if (xblocks > INT_MAX) return false;
    const dim3 grid(static_cast<unsigned>(xblocks), static_cast<unsigned>(nchunks));
    auto launch = [&](const store_t& store) {
      kernel<<<grid, B, 0, s.get()>>>(src, j.op, store, K, R, chunk_len, jmask);
      UFUNC_CHECK_LAUNCH("reduce_pairwise_kernel", s.get());
    };
    if (nchunks == 1) {
      launch(store_t{tail, out, nullptr});
      return true;
    }
    stream_temp partials(sizeof(Acc) * static_cast<std::size_t>(K * nchunks), s);
    Acc* p = static_cast<Acc*>(partials.get());
    launch(store_t{tail, out, p});
    finish_partials(p, K, nchunks, j.op, tail, out, s);
    return true;
  }
  template <int B, int IPT, class Src, class Op, class Store, std::size_t... S>
  static auto pick_pairwise_kernel(unsigned jmask, std::index_sequence<S...>) {
    auto* kernel = reduce_pairwise_kernel<B, IPT, pair_runtime_mask, Src, Op, Store>;
    bool found = false;
    auto consider = [&](auto mask_c) {
      constexpr unsigned mask = decltype(mask_c)::value;
      if constexpr (mask != 0 && mask != pair_runtime_mask)
        if (!found && jmask == mask) {
          kernel = reduce_pairwise_kernel<B, IPT, mask, Src, Op, Store>;
          found = true;
        }
    };
    // Inputs 0 .. S-1 along i, the rest along j, for S = 1 .. NIN-1 (up to 8
    // inputs) where S starts one of the call's inputs (a vec<D> input's D
    // values share its layout): the order of x_i, y_j, b_j. Other layouts take
    // run-time roles (each fixed pattern is a kernel compiled at every such
    // call site: a map of vec<3> x, vec<3> y and b compiled six, four of them
    // for layouts no call can have).
    if constexpr (sizeof...(S) <= 8)
      (consider(std::integral_constant<unsigned, pair_fixed_mask<Src, S>>{}), ...);
    return kernel;
  }

  /// The second pass of a split reduction: out[o] = the `nchunks` partials of
  /// output o (partial[c * K + o]) combined in chunk order. One output: one block
  /// of the row kernel, every thread's loads in flight together (the column
  /// kernel, built for many outputs, took 11.8 us for 1056 argmax partials on an
  /// H100, a twentieth of the whole reduction of 2^27 floats; this takes a few).
  template <class Acc, class Op, class Tail, class Res>
  static void finish_partials(const Acc* p, index_t K, index_t nchunks, const acc_op<Acc, Op>& op, const Tail& tail,
                              Res* out, stream_ref s) {
    if (K == 1) {
      finish_one(p, nchunks, op, tail, out, s);
      return;
    }
    run_split(partial_source<Acc>{p, K}, K, nchunks, false, op, tail, out, s);
  }
  /// finish_partials for one output (its kernel alone: a call site with only
  /// whole reductions compiles no column kernel for its partials).
  template <class Acc, class Op, class Tail, class Res>
  static void finish_one(const Acc* p, index_t nchunks, const acc_op<Acc, Op>& op, const Tail& tail, Res* out,
                         stream_ref s) {
    using tu = rows_reduce_tuning;
    // A dependent launch: scheduled as the first pass ends, it waits for it.
    cuda_launch::launch_dependent(
        reduce_rows_kernel<tu::block, tu::unroll, 1, partial_source<Acc>, acc_op<Acc, Op>, store_result<Tail, Res, Acc>>,
        dim3(1), dim3(tu::block), s.get(), partial_source<Acc>{p, 1}, op, store_result<Tail, Res, Acc>{tail, out, nullptr},
        index_t(1), nchunks, nchunks, index_t(1));
    UFUNC_CHECK_LAUNCH("reduce_rows_kernel", s.get());
  }

  /// Where a row/column kernel puts an output's accumulated value: finished into
  /// `out`, or (the first pass of a split) as a partial at its item index. One
  /// type for both, chosen at run time, so each kernel is instantiated once per
  /// call site rather than once per store (a branch per output costs nothing).
  template <class Tail, class Res, class Acc>
  struct store_result {
    Tail tail;
    Res* out;
    Acc* partial;  // non-null: store partials
    __device__ void operator()(index_t item, index_t o, const Acc& a) const {
      if (partial)
        partial[item] = a;
      else
        result(o, a);
    }
    /// Output o finished (a kernel that combines its own partials).
    __device__ void result(index_t o, const Acc& a) const { out[o] = static_cast<Res>(tail(a)); }
  };

  /// A source whose every array input is computed (reduce_source.hpp's makes_all).
  template <class S, class = void>
  struct made_source_t : std::false_type {};
  template <class S>
  struct made_source_t<S, std::void_t<decltype(S::makes_all)>> : std::bool_constant<S::makes_all> {};
  template <class S>
  static constexpr bool made_source = made_source_t<S>::value;

  /// One output of a source that makes all its elements (made_source: lazy
  /// random leaves): reduce_made_kernel over `waves` waves of its resident
  /// blocks (fewer for a short range: every thread gets a slot), then, for more
  /// than one block, the one-block pass over their partials (in block order).
  template <class Src, class Acc, class Op, class Tail, class Res>
  static void run_made_whole(const Src& src, index_t R, const acc_op<Acc, Op>& op, const Tail& tail, Res* out,
                             stream_ref s) {
    using tu = made_reduce_tuning;
    using store_t = store_result<Tail, Res, Acc>;
    auto go = [&](auto* kernel, index_t V) {
      const index_t slots = (R + V - 1) / V;
      const index_t want = index_t(cuda_launch::sm_count()) * cuda_launch::resident_blocks(kernel, tu::block) * tu::waves;
      const index_t grid = std::clamp<index_t>(slots / tu::block, 1, want);
      if (grid == 1) {
        kernel<<<1, tu::block, 0, s.get()>>>(src, op, store_t{tail, out, nullptr}, R);
        UFUNC_CHECK_LAUNCH("reduce_made_kernel", s.get());
        return;
      }
      stream_temp partials(sizeof(Acc) * static_cast<std::size_t>(grid), s);
      Acc* p = static_cast<Acc*>(partials.get());
      kernel<<<static_cast<unsigned>(grid), tu::block, 0, s.get()>>>(src, op, store_t{tail, out, p}, R);
      UFUNC_CHECK_LAUNCH("reduce_made_kernel", s.get());
      finish_one(p, grid, op, tail, out, s);
    };
    // Two kernels a call site: the flat layout of a whole reduction of leaves,
    // and element by element for any other (broadcast leaves, a chunk that
    // starts inside a block: a Philox block per element, not per V).
    constexpr int VW = Src::vec_width;
    if constexpr (VW > 1)
      if (src.made_flat_ok(VW)) {
        go(reduce_made_kernel<tu::block, VW, Src, acc_op<Acc, Op>, store_t>, VW);
        return;
      }
    go(reduce_made_kernel<tu::block, 1, Src, acc_op<Acc, Op>, store_t>, 1);
  }

  /// Many outputs: a kernel by layout: adjacent reduced elements take a block per
  /// output (long rows) or a group of lanes per output (a warp, or 4 or 2 lanes
  /// for short rows; rows up to warps max_row), adjacent
  /// outputs the column kernel (threads holding neighbouring outputs, a block's
  /// threads splitting the rows into runs; also very short rows, whose threads then
  /// read neighbouring runs). When that cannot fill the GPU the reduced range is
  /// split, partial results go to a temporary and a second pass (columns over the
  /// partials) finishes them. `Whole` (K = 1 known at compile time: a whole
  /// reduction to the host) takes the block-row kernel at any length, so its
  /// call site compiles no short-row or column kernel.
  template <bool Whole = false, class Src, class Acc, class Op, class Tail, class Res>
  static void run_split(const Src& src, index_t K, index_t R, bool rows_like, const acc_op<Acc, Op>& op,
                        const Tail& tail, Res* out, stream_ref s) {
    enum { block_rows, warp_rows, columns } kind = columns;
    using store_t = store_result<Tail, Res, Acc>;
    // The second pass over a split's partials (columns of K accumulators, a few
    // MB at most) is one unsplit column pass: its other kernels are never
    // instantiated, which halves a call site's kernels.
    if (!Src::is_partial && rows_like && R > 8) kind = R <= warps_reduce_tuning::max_row ? warp_rows : block_rows;
    if constexpr (Whole) kind = block_rows;
    // 16-byte loads when the layout allows (one array input, aligned, contiguous).
    // The column kernel holds V accumulators per thread (and a block's worth in
    // shared memory): narrower loads where V * sizeof(Acc) would pass 64 bytes.
    constexpr int VW = Src::vec_width;
    constexpr int CVW = columns_reduce_tuning::vec_width<Acc>(VW);
    const bool vec = (kind != columns && VW > 1 && src.vec_rows_ok(VW)) ||
                     (kind == columns && CVW > 1 && src.vec_columns_ok(CVW));
    const index_t V = vec ? (kind == columns ? CVW : VW) : 1;
    const index_t sms = cuda_launch::sm_count();
    index_t nchunks = 1;
    int cbx = 0, cby = 0;  // the column kernel's block
    int group = 32;        // the short-row kernel's lanes per output
    if (kind == warp_rows) {
      using tu = warps_reduce_tuning;
      const index_t slots = (R + V - 1) / V;
      group = tu::group_for(slots);
      const index_t want = sms * 64 * (32 / group);  // resident groups
      if (K < want) nchunks = std::max<index_t>(1, std::min((want + K - 1) / K, slots / (group * tu::unroll)));
    } else if (kind == block_rows) {
      using tu = rows_reduce_tuning;
      // Blocks for a split (few outputs): one wave of 1,024 threads an SM. H200,
      // dot of 2^27 floats (two inputs, one output): 0.814-0.821 of peak, as with
      // 256-thread blocks; twice the blocks 0.79, four times 0.75.
      index_t want = sms * 8;
      if constexpr (made_source<Src>) {
        // Made, not loaded (lazy random leaves): 8 waves of the launched kernel's
        // resident blocks (rows_reduce_tuning::made_waves).
        int resident = 0;
        if constexpr (VW > 1)
          if (vec)
            resident = cuda_launch::resident_blocks(
                reduce_rows_kernel<tu::block, tu::made_unroll, VW, Src, acc_op<Acc, Op>, store_t>, tu::block);
        if (resident == 0)
          resident = cuda_launch::resident_blocks(
              reduce_rows_kernel<tu::block, tu::unroll, 1, Src, acc_op<Acc, Op>, store_t>, tu::block);
        want = sms * resident * tu::made_waves;
      }
      if (K < want) nchunks = std::max<index_t>(1, std::min((want + K - 1) / K, R / (index_t(tu::block) * tu::unroll)));
    } else {
      using tu = columns_reduce_tuning;
      // Rows per block (by) so that each thread reduces at least min_run rows, as
      // wide in x as the block then allows but no wider than the outputs, with
      // whole segments per warp row. Split the reduced range only if the threads
      // cannot keep enough loads in flight (a split costs a second pass).
      const int min_bx = vec ? tu::min_vec_bx : tu::min_scalar_bx;
      const index_t cols = (K + V - 1) / V;
      cby = 1;
      while (cby * 2 <= tu::block / min_bx && index_t(cby) * 2 * tu::min_run <= R) cby *= 2;
      cbx = tu::block / cby;
      while (cbx > min_bx && cbx / 2 >= cols) cbx /= 2;
      const index_t threads = (cols + cbx - 1) / cbx * cbx * cby;
      const index_t per_thread = vec ? 16 * CVW / VW * tu::vec_unroll<typename column_load<Src>::type, CVW> : 4 * tu::unroll;  // bytes
      const index_t want = sms * tu::bytes_in_flight_per_sm / per_thread;
      if (threads < want && !Src::is_partial)
        nchunks = std::clamp<index_t>(std::min(want / threads, R / (index_t(cby) * tu::min_run)), 1, 65535);
    }
    index_t chunk_len = (R + nchunks - 1) / nchunks;
    if (kind != columns) chunk_len = (chunk_len + V - 1) / V * V;  // chunks start V-aligned
    nchunks = (R + chunk_len - 1) / chunk_len;
    auto launch = [&](const auto& store) {
      // (generic: instantiated only where called)
      auto rows = [&](const auto& st) {
        using tu = rows_reduce_tuning;
        const index_t items = K * nchunks;
        const auto grid = static_cast<unsigned>(std::min<index_t>(items, INT_MAX));
        if constexpr (VW > 1)
          if (vec) {
            constexpr int U = made_source<Src> ? tu::made_unroll : tu::template vec_unroll_for<typename Src::fold_type, VW>;
            reduce_rows_kernel<tu::block, U, VW>
                <<<grid, tu::block, 0, s.get()>>>(src, op, st, K, R, chunk_len, items);
            UFUNC_CHECK_LAUNCH("reduce_rows_kernel", s.get());
            return;
          }
        reduce_rows_kernel<tu::block, tu::unroll, 1><<<grid, tu::block, 0, s.get()>>>(src, op, st, K, R, chunk_len, items);
        UFUNC_CHECK_LAUNCH("reduce_rows_kernel", s.get());
      };
      if constexpr (Src::is_partial) {
        using tu = columns_reduce_tuning;
        const dim3 grid(static_cast<unsigned>((K + cbx - 1) / cbx), 1);
        const dim3 block(static_cast<unsigned>(cbx), static_cast<unsigned>(cby));
        reduce_columns_kernel<tu::block, tu::unroll, 1><<<grid, block, 0, s.get()>>>(src, op, store, K, R, chunk_len);
        UFUNC_CHECK_LAUNCH("reduce_columns_kernel", s.get());
      } else if constexpr (Whole) {
        rows(store);
      } else if (kind == block_rows) {
        rows(store);
      } else if (kind == warp_rows) {
        using tu = warps_reduce_tuning;
        const index_t items = K * nchunks, per_block = tu::block / group;
        const auto grid = static_cast<unsigned>(std::min<index_t>((items + per_block - 1) / per_block, INT_MAX));
        if constexpr (VW > 1)
          if (vec) {
            reduce_warps_kernel<tu::block, tu::unroll, VW>
                <<<grid, tu::block, 0, s.get()>>>(src, op, store, K, R, chunk_len, items, group);
            UFUNC_CHECK_LAUNCH("reduce_warps_kernel", s.get());
            return;
          }
        reduce_warps_kernel<tu::block, tu::unroll, 1>
            <<<grid, tu::block, 0, s.get()>>>(src, op, store, K, R, chunk_len, items, group);
        UFUNC_CHECK_LAUNCH("reduce_warps_kernel", s.get());
      } else {
        using tu = columns_reduce_tuning;
        const dim3 grid(static_cast<unsigned>(((K + V - 1) / V + cbx - 1) / cbx), static_cast<unsigned>(nchunks));
        const dim3 block(static_cast<unsigned>(cbx), static_cast<unsigned>(cby));
        if constexpr (CVW > 1)
          if (vec) {
            reduce_columns_kernel<tu::block, tu::vec_unroll<typename column_load<Src>::type, CVW>, CVW>
                <<<grid, block, 0, s.get()>>>(src, op, store, K, R, chunk_len);
            UFUNC_CHECK_LAUNCH("reduce_columns_kernel", s.get());
            return;
          }
        reduce_columns_kernel<tu::block, tu::unroll, 1><<<grid, block, 0, s.get()>>>(src, op, store, K, R, chunk_len);
        UFUNC_CHECK_LAUNCH("reduce_columns_kernel", s.get());
      }
    };
    if (nchunks == 1) {
      launch(store_t{tail, out, nullptr});
      return;
    }
    if constexpr (!Src::is_partial) {
      stream_temp partials(sizeof(Acc) * static_cast<std::size_t>(K * nchunks), s);
      Acc* p = static_cast<Acc*>(partials.get());
      launch(store_t{tail, out, p});
      if constexpr (Whole)
        finish_one(p, nchunks, op, tail, out, s);
      else
        finish_partials(p, K, nchunks, op, tail, out, s);
    }
  }
#endif
};

}  // namespace ufunc::detail
