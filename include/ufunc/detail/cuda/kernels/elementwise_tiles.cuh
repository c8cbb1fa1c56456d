// Mixed-layout elementwise kernel: some inputs run through memory along the
// second-to-last merged dimension while the outputs run along the last one
// (`add(A.transposed(), B)`). Read directly, such an input costs a 32-byte sector
// per element. Here a block takes a (32 rows, 64 columns) tile of the result:
// every such input is first read into shared memory with threads along its own
// fast dimension (coalesced; all of a thread's loads issued before its stores,
// for memory-level parallelism, as the optimized transpose does), then each
// thread computes 8 results reading those inputs across the tile and the others
// directly, threads along the outputs' fast dimension. The tile is padded by one
// element per column so that reading across it touches 32 banks.
#pragma once

#include "../../operand.hpp"

namespace ufunc::detail {

struct tiles_tuning {
  static constexpr int rows = 32;     // tile rows (the inputs' fast dim): one warp's loads
  static constexpr int cols = 64;     // tile columns (the outputs' fast dim)
  static constexpr int block_y = 8;   // threads are (32, block_y)
  static constexpr int pitch = rows + 1;
  /// Shared memory for one staged input of element size `bytes`, rounded to 16.
  static constexpr std::size_t tile_bytes(std::size_t bytes) { return (cols * pitch * bytes + 15) / 16 * 16; }
  static constexpr std::size_t max_smem = 48 * 1024;  // no opt-in needed
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

/// Input K's part of the tile into shared memory, if it is staged.
template <int NOUT, std::size_t K, class Ins, int NOPS>
__device__ __forceinline__ void stage_tile(unsigned char* smem, const Ins& ins, const tile_plan<NOPS>& p,
                                           const index_t* base, index_t i0, index_t j0) {
  using Op = cuda::std::tuple_element_t<K, Ins>;
  constexpr int k = NOUT + static_cast<int>(K);
  if constexpr (Op::is_array) {
    if (!((p.staged >> k) & 1)) return;
    using T = typename Op::value_type;
    constexpr int TC = tiles_tuning::cols, BY = tiles_tuning::block_y;
    T* tile = reinterpret_cast<T*>(smem + p.smem_off[k]);
    const T* src = cuda::std::get<K>(ins).p + base[k];
    const index_t r = i0 + threadIdx.x;
    T v[TC / BY];
#pragma unroll
    for (int q = 0; q < TC / BY; ++q) {
      const index_t c = j0 + threadIdx.y + BY * q;
      if (r < p.nr && c < p.nc) v[q] = src[r * p.sr[k] + c * p.sc[k]];
    }
#pragma unroll
    for (int q = 0; q < TC / BY; ++q) tile[(threadIdx.y + BY * q) * tiles_tuning::pitch + threadIdx.x] = v[q];
  }
}

/// Input K's value at tile position (lr, lc), result element (r, c).
template <int NOUT, std::size_t K, class Ins, int NOPS>
__device__ __forceinline__ auto tile_value(const unsigned char* smem, const Ins& ins, const tile_plan<NOPS>& p,
                                           const index_t* base, int lr, int lc, index_t r, index_t c) {
  using Op = cuda::std::tuple_element_t<K, Ins>;
  constexpr int k = NOUT + static_cast<int>(K);
  const Op& op = cuda::std::get<K>(ins);
  if constexpr (Op::is_array) {
    using T = typename Op::value_type;
    if ((p.staged >> k) & 1) return reinterpret_cast<const T*>(smem + p.smem_off[k])[lc * tiles_tuning::pitch + lr];
    return op.load(base[k] + r * p.sr[k] + c * p.sc[k]);
  } else {
    return op.load(0);
  }
}

template <int NOUT, class Ins, int NOPS, std::size_t... K>
__device__ __forceinline__ void stage_tiles(unsigned char* smem, const Ins& ins, const tile_plan<NOPS>& p,
                                            const index_t* base, index_t i0, index_t j0, std::index_sequence<K...>) {
  (stage_tile<NOUT, K>(smem, ins, p, base, i0, j0), ...);
}
template <int NOUT, class F, class Ins, int NOPS, std::size_t... K>
__device__ __forceinline__ auto tile_call(const F& f, const unsigned char* smem, const Ins& ins,
                                          const tile_plan<NOPS>& p, const index_t* base, int lr, int lc, index_t r,
                                          index_t c, std::index_sequence<K...>) {
  return f(tile_value<NOUT, K>(smem, ins, p, base, lr, lc, r, c)...);
}

template <class R, int NOPS, class F, class Outs, class... Ops>
__global__ void __launch_bounds__(32 * tiles_tuning::block_y)
    elementwise_tiles_kernel(F f, Outs outs, cuda::std::tuple<Ops...> ins, tile_plan<NOPS> p) {
  extern __shared__ __align__(16) unsigned char smem[];
  constexpr int NOUT = result_traits<R>::nout;
  constexpr int TR = tiles_tuning::rows, TC = tiles_tuning::cols, BY = tiles_tuning::block_y;
  const int tx = static_cast<int>(threadIdx.x), ty = static_cast<int>(threadIdx.y);
  const index_t per_slab = p.tiles_r * p.tiles_c;
  for (index_t t = blockIdx.x; t < p.ntiles; t += gridDim.x) {
    const index_t z = t / per_slab, in_slab = t - z * per_slab;
    const index_t ti = in_slab / p.tiles_c, tj = in_slab - ti * p.tiles_c;  // consecutive blocks along columns
    index_t base[NOPS];
    p.outer.offsets(static_cast<std::uint64_t>(z), base);
    const index_t i0 = ti * TR, j0 = tj * TC;
    stage_tiles<NOUT>(smem, ins, p, base, i0, j0, std::index_sequence_for<Ops...>{});
    __syncthreads();  // the tiles are complete before they are read across
#pragma unroll
    for (int q = 0; q < TR / BY; ++q)
#pragma unroll
      for (int h = 0; h < TC / 32; ++h) {
        const int lr = ty + BY * q, lc = tx + 32 * h;
        const index_t r = i0 + lr, c = j0 + lc;
        if (r < p.nr && c < p.nc) {
          index_t off[NOUT];
#pragma unroll
          for (int j = 0; j < NOUT; ++j) off[j] = base[j] + r * p.sr[j] + c * p.sc[j];
          const R res = tile_call<NOUT>(f, smem, ins, p, base, lr, lc, r, c, std::index_sequence_for<Ops...>{});
          store_result_at(outs, off, res, std::make_index_sequence<NOUT>{});
        }
      }
    __syncthreads();  // everyone has read the tiles before the next ones overwrite them
  }
}

}  // namespace ufunc::detail
