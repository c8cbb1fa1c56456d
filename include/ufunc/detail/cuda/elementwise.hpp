// CUDA backend of the elementwise engine: picks the kernel (flat, row tiles or
// per-element N-d) and the vector width for a planned call and launches it on
// the caller's stream; a layout past 32-bit indices runs as pieces within them.
// Kernels in kernels/elementwise_*.cuh.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>

#include "../../stream.hpp"
#include "../element.hpp"
#include "../layout.hpp"
#include "../operand.hpp"
#include "launch.hpp"

#if defined(__CUDACC__)
#  include "kernels/elementwise_flat.cuh"
#  include "kernels/elementwise_nd.cuh"
#  include "kernels/elementwise_rows.cuh"
#  include "kernels/elementwise_tiles.cuh"
#endif

namespace ufunc::detail {

/// Vector widths of an elementwise call, from its outputs' and array inputs'
/// element types (a scalar input does not limit them).
template <class Outs, class Ins>
struct access_sizes;
template <class... O, class... Ops>
struct access_sizes<cuda::std::tuple<O*...>, cuda::std::tuple<Ops...>> {
  /// Flat path: elements per vector access, so the widest type moves 16 bytes.
  static constexpr int flat_vec =
      common_vec_width<O..., std::conditional_t<Ops::is_array, typename Ops::value_type, unsigned char>...>();
  /// N-d path: consecutive results per thread (one 16-byte store of the widest output), at most 8.
  static constexpr int nd_elems = std::min(8, common_vec_width<O...>());
};

template <std::size_t N>
bool aligned_to(const std::array<operand_layout, N>& ops, int lanes, int count = static_cast<int>(N)) {
  for (int k = 0; k < count; ++k) {
    const auto& op = ops[static_cast<std::size_t>(k)];
    if (op.is_array && !cuda_launch::is_aligned(op.data, std::min<std::size_t>(16, op.elem_size * static_cast<std::size_t>(lanes))))
      return false;
  }
  return true;
}

template <class Target>
struct elementwise_backend;

template <>
struct elementwise_backend<target::cuda> {
  template <class R, int NOPS, class F, class Outs, class Ins>
  static void run(const F& f, const Outs& outs, const Ins& ins, const std::array<operand_layout, NOPS>& ops,
                  const merged_layout<NOPS>& m, bool flat, index_t n, stream_ref s) {
#if defined(__CUDACC__)
    using sz = access_sizes<Outs, Ins>;
    constexpr int NOUT = result_traits<R>::nout;
    if (flat) {
      if (sz::flat_vec == 1 || n < sz::flat_vec || aligned_to(ops, sz::flat_vec))
        return launch_flat<sz::flat_vec, R>(f, outs, ins, n, s);
      // Misaligned: the row kernel below walks each operand as its own
      // alignment allows (one flat kernel a call site, not two).
    }
    // N-d: inputs whose fast dim is not the outputs' go through shared-memory
    // tiles; otherwise long rows take the row-tiled kernel, short ones the
    // per-element one, with 32-bit index math: a layout whose indices or
    // offsets do not fit runs as pieces that do.
    if (const std::uint64_t staged = staged_inputs<NOPS>(m, ops, NOUT))
      if (launch_tiles<R, NOPS>(f, outs, ins, ops, m, staged, s)) return;
    for_each_32bit_piece(m, n, [&](const merged_layout<NOPS>& p, const std::array<index_t, NOPS>& first, index_t count) {
      const Outs o = shift_outs(outs, first.data(), std::make_index_sequence<NOUT>{});
      const Ins in = shift_ins(ins, first.data() + NOUT, std::make_index_sequence<cuda::std::tuple_size<Ins>::value>{});
      std::array<operand_layout, NOPS> pops = ops;  // their addresses, for the alignment tests
      for (std::size_t k = 0; k < pops.size(); ++k)
        pops[k].data = reinterpret_cast<const void*>(reinterpret_cast<std::uintptr_t>(pops[k].data) +
                                                     static_cast<std::uintptr_t>(first[k]) * pops[k].elem_size);
      if (p.dims[static_cast<std::size_t>(p.ndim - 1)] >= rows_tuning::min_inner)
        return launch_rows<std::uint32_t, R, NOPS>(f, o, in, pops, p, count, s);
      constexpr int E = sz::nd_elems;
      bool out_flat = aligned_to(pops, E, NOUT);
      for (int j = 0; j < NOUT; ++j) out_flat = out_flat && row_major_in(p, j);
      launch_nd<E, std::uint32_t, R>(f, o, in, make_plan<NOPS, std::uint32_t>(p), count, out_flat, s);
    });
#else
    cuda_launch::require_nvcc<F>();
#endif
  }

  /// The flat path alone: every operand contiguous and row-major over n
  /// elements. `Aligned`: the caller guarantees every operand aligned to 16
  /// bytes or n below the vector width (a fill's head, fill_contiguous), and
  /// only the vector kernel is compiled.
  template <class R, int NOPS, bool Aligned = false, class F, class Outs, class Ins>
  static void run_flat(const F& f, const Outs& outs, const Ins& ins, const std::array<operand_layout, NOPS>& ops,
                       index_t n, stream_ref s) {
#if defined(__CUDACC__)
    using sz = access_sizes<Outs, Ins>;
    if constexpr (Aligned) {
      launch_flat<sz::flat_vec, R>(f, outs, ins, n, s);
      return;
    } else {
      if constexpr (sz::flat_vec > 1)
        if (aligned_to(ops, sz::flat_vec)) return launch_flat<sz::flat_vec, R>(f, outs, ins, n, s);
      launch_flat<1, R>(f, outs, ins, n, s);
    }
#else
    (void)f, (void)outs, (void)ins, (void)ops, (void)n, (void)s;
    cuda_launch::require_nvcc<F>();
#endif
  }

#if defined(__CUDACC__)
  template <class Outs, std::size_t... J>
  static Outs shift_outs(const Outs& outs, const index_t* first, std::index_sequence<J...>) {
    return Outs{(cuda::std::get<J>(outs) + first[J])...};
  }
  template <class Ins, std::size_t... I>
  static Ins shift_ins(const Ins& ins, const index_t* first, std::index_sequence<I...>) {
    (void)first;  // (no inputs)
    return Ins{cuda::std::get<I>(ins).rebased(first[I])...};
  }
  /// True when operand k walks the layout's elements in order, contiguously.
  template <int NOPS>
  static bool row_major_in(const merged_layout<NOPS>& m, int k) {
    index_t expect = 1;
    for (int d = m.ndim - 1; d >= 0; --d) {
      const auto ud = static_cast<std::size_t>(d);
      if (m.strides[static_cast<std::size_t>(k)][ud] != expect) return false;
      expect *= m.dims[ud];
    }
    return true;
  }

  template <int V, class R, class F, class Outs, class Ins>
  static void launch_flat(const F& f, const Outs& outs, const Ins& ins, index_t n, stream_ref s) {
    constexpr int U = flat_tuning::unroll;
    const unsigned grid = cuda_launch::grid_for(n / V, index_t(flat_tuning::block) * U);
    elementwise_flat_kernel<V, U, R><<<grid, flat_tuning::block, 0, s.get()>>>(f, outs, ins, n);
    UFUNC_CHECK_LAUNCH("elementwise_flat_kernel", s.get());
  }

  template <class Idx, class R, int NOPS, class F, class Outs, class Ins>
  static void launch_rows(const F& f, const Outs& outs, const Ins& ins, const std::array<operand_layout, NOPS>& ops,
                          const merged_layout<NOPS>& m, index_t n, stream_ref s) {
    constexpr int V = access_sizes<Outs, Ins>::flat_vec;
    constexpr int G = rows_tuning::groups;
    const auto plan = make_plan<NOPS, Idx>(m);
    const int last = m.ndim - 1;
    walk_modes<NOPS> modes{};
    for (int k = 0; k < NOPS; ++k) {
      const auto& st = m.strides[static_cast<std::size_t>(k)];
      const index_t step = st[static_cast<std::size_t>(last)];
      bool vec_ok = step == 1 && aligned_to(std::array<operand_layout, 1>{ops[static_cast<std::size_t>(k)]}, V);
      for (int d = 0; d < last && vec_ok; ++d) vec_ok = st[static_cast<std::size_t>(d)] % V == 0;
      modes.m[k] = step == 0 ? walk::broadcast : (vec_ok ? walk::contiguous : walk::strided);
    }
    const index_t inner = m.dims[static_cast<std::size_t>(last)];
    const index_t tile_cols = index_t(rows_tuning::block) * V * G;
    const index_t tpr = (inner + tile_cols - 1) / tile_cols;
    const index_t ntiles = n / inner * tpr;
    auto kernel = rows_kernel_for<V, G, Idx, R>(f, outs, ins, plan);
    kernel<<<cuda_launch::grid_for(ntiles, 1), rows_tuning::block, 0, s.get()>>>(
        f, outs, ins, plan, modes, divider<Idx>(static_cast<Idx>(tpr)), static_cast<Idx>(ntiles));
    UFUNC_CHECK_LAUNCH("elementwise_rows_kernel", s.get());
  }
  template <int V, int G, class Idx, class R, class F, class Outs, class... Ops, int NOPS>
  static auto rows_kernel_for(const F&, const Outs&, const cuda::std::tuple<Ops...>&, const nd_plan<NOPS, Idx>&) {
    return elementwise_rows_kernel<V, G, Idx, R, NOPS, F, Outs, Ops...>;
  }

  /// The mixed-layout kernel; false (nothing launched) when the staged inputs'
  /// tiles would not fit a block's shared memory.
  template <class R, int NOPS, class F, class Outs, class Ins>
  static bool launch_tiles(const F& f, const Outs& outs, const Ins& ins, const std::array<operand_layout, NOPS>& ops,
                           const merged_layout<NOPS>& m, std::uint64_t staged, stream_ref s) {
    using tu = tiles_tuning;
    tile_plan<NOPS> p;
    std::size_t smem = 0;
    for (int k = 0; k < NOPS; ++k)
      if ((staged >> k) & 1) {
        p.smem_off[k] = static_cast<unsigned>(smem);
        smem += tu::tile_bytes(ops[static_cast<std::size_t>(k)].elem_size);
      }
    auto kernel = tiles_kernel_for<R>(f, outs, ins, p);
    if (smem > tu::default_smem) {  // several staged inputs: opt in to more, if the device has it
      if (smem > static_cast<std::size_t>(cuda_launch::current_device().smem_optin)) return false;
      cuda_launch::allow_dynamic_smem(kernel, smem);  // thread-safe: see there
    }
    const int last = m.ndim - 1;
    p.nr = m.dims[static_cast<std::size_t>(last - 1)];
    p.nc = m.dims[static_cast<std::size_t>(last)];
    p.tiles_r = (p.nr + tu::rows - 1) / tu::rows;
    p.tiles_c = (p.nc + tu::cols - 1) / tu::cols;
    merged_layout<NOPS> outer = m;  // the dims before the last two
    outer.ndim = m.ndim - 2;
    index_t slabs = 1;
    for (int d = 0; d < outer.ndim; ++d) slabs *= m.dims[static_cast<std::size_t>(d)];
    p.outer = make_plan<NOPS, std::uint64_t>(outer);
    p.ntiles = slabs * p.tiles_r * p.tiles_c;
    for (int k = 0; k < NOPS; ++k) {
      p.sr[k] = m.strides[static_cast<std::size_t>(k)][static_cast<std::size_t>(last - 1)];
      p.sc[k] = m.strides[static_cast<std::size_t>(k)][static_cast<std::size_t>(last)];
    }
    p.staged = staged;
    kernel<<<cuda_launch::grid_for(p.ntiles, 1), dim3(32, tu::block_y), smem, s.get()>>>(f, outs, ins, p);
    UFUNC_CHECK_LAUNCH("elementwise_tiles_kernel", s.get());
    return true;
  }
  template <class R, class F, class Outs, class... Ops, int NOPS>
  static auto tiles_kernel_for(const F&, const Outs&, const cuda::std::tuple<Ops...>&, const tile_plan<NOPS>&) {
    return elementwise_tiles_kernel<R, NOPS, F, Outs, Ops...>;
  }

  template <int E, class Idx, class R, int NOPS, class F, class Outs, class Ins>
  static void launch_nd(const F& f, const Outs& outs, const Ins& ins, const nd_plan<NOPS, Idx>& plan, index_t n,
                        bool out_flat, stream_ref s) {
    const unsigned grid = cuda_launch::grid_for(n, index_t(nd_tuning::block) * E);
    elementwise_nd_kernel<E, Idx, R><<<grid, nd_tuning::block, 0, s.get()>>>(f, outs, ins, plan, n, out_flat);
    UFUNC_CHECK_LAUNCH("elementwise_nd_kernel", s.get());
  }
#endif
};

}  // namespace ufunc::detail
