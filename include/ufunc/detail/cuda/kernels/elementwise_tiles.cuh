// Mixed-layout elementwise kernel: some inputs run through memory along the
// second-to-last merged dimension while the outputs run along the last one
// (`add(A.transposed(), B)`). Read directly, such an input costs a 32-byte sector
// per element. Here a block takes a (64 rows, 64 columns) tile of the result:
//   1. every thread issues all of its loads at once: for a staged input (one
//      running along rows) 16 elements with threads along rows (coalesced), for
//      every other array input the 16 elements of its own results, threads
//      along columns; so a block has 16 KiB per float input in flight, the
//      memory-level parallelism the optimized transpose showed HBM3 needs;
//   2. the staged elements go to shared memory, padded by one element per
//      column so that reading across the tile touches 32 banks;
//   3. after one barrier each thread reads its staged values across the tile,
//      computes its 16 results and stores them, threads along columns.
#pragma once

#include "../../operand.hpp"

namespace ufunc::detail {

struct tiles_tuning {
  static constexpr int rows = 64;    // tile rows (the staged inputs' fast dim)
  static constexpr int cols = 64;    // tile columns (the outputs' fast dim)
  static constexpr int block_y = 8;  // threads are (32, block_y)
  static constexpr int pitch = rows + 1;
  static constexpr int per_thread = rows * cols / (32 * block_y);  // 16
  /// Shared memory for one staged input of element size `bytes`, rounded to 16.
  static constexpr std::size_t tile_bytes(std::size_t bytes) { return (cols * pitch * bytes + 15) / 16 * 16; }
  static constexpr std::size_t default_smem = 48 * 1024;  // more needs an opt-in per kernel
};

/// What the kernel needs: the last two merged dims (rows, cols), the outer dims
/// as a plan, each operand's strides along rows and cols (outputs first), which
/// inputs are staged (bit k of `staged`, k counting outputs first) and where
/// their tiles sit in shared memory.
template <int NOPS>
struct tile_plan {
  index_t nr = 0, nc = 0, tiles_r = 0, tiles_c = 0, ntiles = 0;
  nd_plan<NOPS, std::uint64_t> outer;
  index_t sr[NOPS > 0 ? NOPS : 1] = {}, sc[NOPS > 0 ? NOPS : 1] = {};
  std::uint64_t staged = 0;
  unsigned smem_off[NOPS > 0 ? NOPS : 1] = {};
};

/// A thread's values of one input: 16 for an array, none for a scalar.
template <class Op>
struct tile_regs {
  typename Op::value_type v[tiles_tuning::per_thread];
};
template <class T>
struct tile_regs<in_value<T>> {};

/// Phase 1 for input K: its loads into registers (result positions, or the
/// transposed positions of a staged input).
template <int NOUT, std::size_t K, class Regs, class Ins, int NOPS>
__device__ __forceinline__ void tile_load(Regs& regs, const Ins& ins, const tile_plan<NOPS>& p, const index_t* base,
                                          index_t i0, index_t j0) {
  using Op = cuda::std::tuple_element_t<K, Ins>;
  if constexpr (Op::is_array) {
    constexpr int k = NOUT + static_cast<int>(K), BY = tiles_tuning::block_y;
    auto& v = cuda::std::get<K>(regs).v;
    const auto src = operand_base(cuda::std::get<K>(ins), base[k]);  // a pointer, or a computed operand rebased
    const index_t sr = p.sr[k], sc = p.sc[k];
    const int tx = static_cast<int>(threadIdx.x), ty = static_cast<int>(threadIdx.y);
    if ((p.staged >> k) & 1) {  // threads along rows: (r = tx + 32 a, c = ty + BY q)
#pragma unroll
      for (int a = 0; a < tiles_tuning::rows / 32; ++a)
#pragma unroll
        for (int q = 0; q < tiles_tuning::cols / BY; ++q) {
          const index_t r = i0 + tx + 32 * a, c = j0 + ty + BY * q;
          if (r < p.nr && c < p.nc) v[a * (tiles_tuning::cols / BY) + q] = operand_read(src, r * sr + c * sc);
        }
    } else {  // threads along columns: (r = ty + BY q, c = tx + 32 h), as the results
#pragma unroll
      for (int q = 0; q < tiles_tuning::rows / BY; ++q)
#pragma unroll
        for (int h = 0; h < tiles_tuning::cols / 32; ++h) {
          const index_t r = i0 + ty + BY * q, c = j0 + tx + 32 * h;
          if (r < p.nr && c < p.nc) v[q * (tiles_tuning::cols / 32) + h] = operand_read(src, r * sr + c * sc);
        }
    }
  }
}

/// Phase 2: a staged input's registers into its shared-memory tile, [col][row].
template <int NOUT, std::size_t K, class Regs, class Ins, int NOPS>
__device__ __forceinline__ void tile_stage(unsigned char* smem, const Regs& regs, const tile_plan<NOPS>& p) {
  using Op = cuda::std::tuple_element_t<K, Ins>;
  if constexpr (Op::is_array) {
    constexpr int k = NOUT + static_cast<int>(K), BY = tiles_tuning::block_y;
    if (!((p.staged >> k) & 1)) return;
    using T = typename Op::value_type;
    T* tile = reinterpret_cast<T*>(smem + p.smem_off[k]);
    const auto& v = cuda::std::get<K>(regs).v;
#pragma unroll
    for (int a = 0; a < tiles_tuning::rows / 32; ++a)
#pragma unroll
      for (int q = 0; q < tiles_tuning::cols / BY; ++q)
        tile[(threadIdx.y + BY * q) * tiles_tuning::pitch + threadIdx.x + 32 * a] = v[a * (tiles_tuning::cols / BY) + q];
  }
}

/// Phase 3: a staged input's values at the thread's result positions, read
/// across the tile.
template <int NOUT, std::size_t K, class Regs, class Ins, int NOPS>
__device__ __forceinline__ void tile_unstage(const unsigned char* smem, Regs& regs, const tile_plan<NOPS>& p) {
  using Op = cuda::std::tuple_element_t<K, Ins>;
  if constexpr (Op::is_array) {
    constexpr int k = NOUT + static_cast<int>(K), BY = tiles_tuning::block_y;
    if (!((p.staged >> k) & 1)) return;
    using T = typename Op::value_type;
    const T* tile = reinterpret_cast<const T*>(smem + p.smem_off[k]);
    auto& v = cuda::std::get<K>(regs).v;
#pragma unroll
    for (int q = 0; q < tiles_tuning::rows / BY; ++q)
#pragma unroll
      for (int h = 0; h < tiles_tuning::cols / 32; ++h)
        v[q * (tiles_tuning::cols / 32) + h] = tile[(threadIdx.x + 32 * h) * tiles_tuning::pitch + threadIdx.y + BY * q];
  }
}

template <std::size_t K, class Regs, class Ins>
__device__ __forceinline__ auto tile_value(const Regs& regs, const Ins& ins, int e) {
  using Op = cuda::std::tuple_element_t<K, Ins>;
  if constexpr (Op::is_array)
    return cuda::std::get<K>(regs).v[e];
  else
    return cuda::std::get<K>(ins).load(0);
}

template <int NOUT, class Regs, class Ins, int NOPS, std::size_t... K>
__device__ __forceinline__ void tile_phases_load(unsigned char* smem, Regs& regs, const Ins& ins,
                                                 const tile_plan<NOPS>& p, const index_t* base, index_t i0,
                                                 index_t j0, std::index_sequence<K...>) {
  (tile_load<NOUT, K>(regs, ins, p, base, i0, j0), ...);
  (tile_stage<NOUT, K, Regs, Ins>(smem, regs, p), ...);
}
template <int NOUT, class Regs, class Ins, int NOPS, std::size_t... K>
__device__ __forceinline__ void tile_phase_unstage(const unsigned char* smem, Regs& regs, const tile_plan<NOPS>& p,
                                                   std::index_sequence<K...>) {
  (tile_unstage<NOUT, K, Regs, Ins>(smem, regs, p), ...);
}
template <class F, class Regs, class Ins, std::size_t... K>
__device__ __forceinline__ auto tile_call(const F& f, const Regs& regs, const Ins& ins, int e,
                                          std::index_sequence<K...>) {
  return f(tile_value<K>(regs, ins, e)...);
}

template <class R, int NOPS, class F, class Outs, class... Ops>
__global__ void __launch_bounds__(32 * tiles_tuning::block_y)
    elementwise_tiles_kernel(F f, Outs outs, cuda::std::tuple<Ops...> ins, tile_plan<NOPS> p) {
  extern __shared__ __align__(16) unsigned char smem[];
  using Ins = cuda::std::tuple<Ops...>;
  using seq = std::index_sequence_for<Ops...>;
  constexpr int NOUT = result_traits<R>::nout;
  constexpr int TR = tiles_tuning::rows, TC = tiles_tuning::cols, BY = tiles_tuning::block_y;
  const int tx = static_cast<int>(threadIdx.x), ty = static_cast<int>(threadIdx.y);
  const index_t per_slab = p.tiles_r * p.tiles_c;
  cuda::std::tuple<tile_regs<Ops>...> regs;
  for (index_t t = blockIdx.x; t < p.ntiles; t += gridDim.x) {
    const index_t z = t / per_slab, in_slab = t - z * per_slab;
    const index_t ti = in_slab / p.tiles_c, tj = in_slab - ti * p.tiles_c;  // consecutive blocks along columns
    index_t base[NOPS];
    p.outer.offsets(static_cast<std::uint64_t>(z), base);
    const index_t i0 = ti * TR, j0 = tj * TC;
    tile_phases_load<NOUT>(smem, regs, ins, p, base, i0, j0, seq{});
    __syncthreads();  // the tiles are complete before they are read across
    tile_phase_unstage<NOUT, decltype(regs), Ins>(smem, regs, p, seq{});
#pragma unroll
    for (int q = 0; q < TR / BY; ++q)
#pragma unroll
      for (int h = 0; h < TC / 32; ++h) {
        const index_t r = i0 + ty + BY * q, c = j0 + tx + 32 * h;
        if (r < p.nr && c < p.nc) {
          index_t off[NOUT];
#pragma unroll
          for (int j = 0; j < NOUT; ++j) off[j] = base[j] + r * p.sr[j] + c * p.sc[j];
          const R res = tile_call(f, regs, ins, q * (TC / 32) + h, seq{});
          store_result_at(outs, off, res, std::make_index_sequence<NOUT>{});
        }
      }
    __syncthreads();  // everyone has read the tiles before the next ones overwrite them
  }
}

}  // namespace ufunc::detail
