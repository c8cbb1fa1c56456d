// Pairwise reductions: out[i] = op over j of map(inputs at (i, j)) where every
// input moves along i alone (x_i) or along j alone (y_j, b_j): a kernel sum or a
// nearest-neighbour search over N x M pairs. The general kernels re-read every
// y_j from cache for each output; here a block stages a tile of j values in
// shared memory once, and each thread keeps its outputs' x_i and accumulators in
// registers and applies the map to every staged j (KeOps' scheme). Per thread,
// a tile's elements are folded in order and tiles are combined as a binary
// counter (a cascade of partial results), so the rounding error of a float op
// grows like tile + log2(tiles) rather than like M. Float and double sums
// (wide_sum.hpp) instead fold runs of `sum_run` elements in the element type and
// add each run to a wide accumulator (double; compensated double): an error of
// at most sum_run roundings of the element type, whatever M.
#pragma once

#include <cstddef>
#include <cuda/std/tuple>
#include <type_traits>
#include <utility>

#include "../../reduce_source.hpp"
#include "../wide_sum.hpp"

namespace ufunc::detail {

struct pairwise_reduce_tuning {
  static constexpr int block = 256;
  static constexpr int outputs_per_thread = 4;  // each staged y_j serves 4 outputs per thread
  static constexpr int tile = 256;              // j elements staged per round
  static constexpr int levels = 32;             // cascade depth: up to 2^32 tiles per chunk
  static constexpr int sum_run = 8;             // float/double sums: elements folded before widening
};

/// acc_op<float or double, plus>: the pairwise kernel sums in runs into a wide accumulator.
template <class Op>
struct pair_wide_op : std::false_type {};
template <class Acc>
struct pair_wide_op<acc_op<Acc, plus>> : std::bool_constant<wide_sum<Acc, plus>::value> {};

/// Shared-memory layout of a tile: a run of `Tile` values for each array input
/// (inputs that do not move along j leave theirs unused; broadcast values have none).
template <class Ins, int Tile>
struct pair_tiles;
template <class... Ops, int Tile>
struct pair_tiles<cuda::std::tuple<Ops...>, Tile> {
  static constexpr std::size_t n = sizeof...(Ops);
  static UFUNC_HD constexpr std::size_t round16(std::size_t b) { return (b + 15) / 16 * 16; }
  template <std::size_t K>
  static UFUNC_HD constexpr std::size_t offset() {
    constexpr std::size_t sizes[] = {(Ops::is_array ? round16(sizeof(typename Ops::value_type) * Tile) : 0)..., 0};
    std::size_t s = 0;
    for (int k = 0; k < static_cast<int>(K); ++k) s += sizes[k];
    return s;
  }
  static constexpr std::size_t bytes = offset<n>() > 0 ? offset<n>() : 16;
};

/// Input K's byte offset in a tile (a constant usable in device code).
template <class Ins, int Tile, std::size_t K>
inline constexpr std::size_t pair_off = pair_tiles<Ins, Tile>::template offset<K>();

/// Input K's value for output slot u and staged element jj: from the tile when
/// the input moves along j, else the value loaded for the output.
/// With Mask == pair_runtime_mask the roles come from `jmask` at run time (a
/// select per input and output slot for every pair); any other Mask fixes them
/// at compile time, so the map reads its arguments straight from registers and
/// shared memory (H100, 3-D Gaussian kernel sum: 1.0 T pairs/s with run-time
/// roles, 1.66 T with fixed ones: the selects took 40% of the issue slots).
inline constexpr unsigned pair_runtime_mask = ~0u;

template <std::size_t K, unsigned Mask, int Tile, class Ins, class IVals>
__device__ __forceinline__ auto pair_value(const unsigned char* smem, unsigned jmask, const IVals& iv, int u, int jj) {
  using Op = cuda::std::tuple_element_t<K, Ins>;
  using T = typename Op::value_type;
  if constexpr (Op::is_array) {
    if constexpr (Mask == pair_runtime_mask) {
      if (jmask >> K & 1u) return reinterpret_cast<const T*>(smem + pair_off<Ins, Tile, K>)[jj];
    } else if constexpr ((Mask >> K & 1u) != 0) {
      return reinterpret_cast<const T*>(smem + pair_off<Ins, Tile, K>)[jj];
    }
  }
  return cuda::std::get<K>(iv)[u];
}

template <unsigned Mask, class Src, class IVals, std::size_t... K>
__device__ __forceinline__ auto pair_map(const Src& src, const unsigned char* smem, unsigned jmask, const IVals& iv,
                                         int u, int jj, std::index_sequence<K...>) {
  using Ins = decltype(src.ins);
  return src.map(pair_value<K, Mask, pairwise_reduce_tuning::tile, Ins>(smem, jmask, iv, u, jj)...);
}

/// The masks with fixed roles the dispatch instantiates: the array inputs from
/// position S on move along j (x_i first, then y_j, b_j: the usual order).
template <class Ins, std::size_t S>
struct pair_split_mask;
template <class... Ops, std::size_t S>
struct pair_split_mask<cuda::std::tuple<Ops...>, S> {
  static constexpr unsigned value = [] {
    constexpr bool arr[] = {Ops::is_array..., false};
    unsigned m = 0;
    for (int k = static_cast<int>(S); k < static_cast<int>(sizeof...(Ops)); ++k)
      if (arr[k]) m |= 1u << k;
    return m;
  }();
};

/// Whether the dispatch compiles fixed roles split at input S of Map's split
/// arguments: only where an original input starts (Map::starts_input, the
/// vec<D> wrapper core_fn's), else everywhere (every argument is an input).
template <class Map, std::size_t S, class = void>
struct pair_split_ok : std::true_type {};
template <class Map, std::size_t S>
struct pair_split_ok<Map, S, std::void_t<decltype(Map::starts_input(S))>>
    : std::bool_constant<Map::starts_input(S)> {};

/// The fixed-role mask the dispatch compiles for split S of Src's inputs: 0
/// (none) for S = 0 and for a split inside a vec<D> input.
template <class Src, std::size_t S>
inline constexpr unsigned pair_fixed_mask =
    S == 0 || !pair_split_ok<std::remove_cv_t<std::remove_reference_t<decltype(std::declval<Src>().map)>>, S>::value
        ? 0u
        : pair_split_mask<std::remove_cv_t<std::remove_reference_t<decltype(std::declval<Src>().ins)>>, S>::value;

/// Per output slot, each input's value where it does not move along j.
template <int IPT, class Ins>
struct pair_ivals;
template <int IPT, class... Ops>
struct pair_ivals<IPT, cuda::std::tuple<Ops...>> {
  template <class Op>
  struct vals {
    typename Op::value_type v[IPT];
    __device__ __forceinline__ const typename Op::value_type& operator[](int u) const { return v[u]; }
  };
  using type = cuda::std::tuple<vals<Ops>...>;
};

/// Input k's values for the thread's outputs (i clamped to K - 1: threads past
/// K compute a copy of the last output and store nothing).
template <std::size_t k, int IPT, int Block, class Src, class V>
__device__ __forceinline__ void pair_load_ival(const Src& src, V& dst, index_t i0, index_t K) {
  using Ins = decltype(src.ins);
  const auto& in = cuda::std::get<k>(src.ins);
#pragma unroll
  for (int u = 0; u < IPT; ++u) {
    const index_t i = i0 + index_t(u) * Block < K ? i0 + index_t(u) * Block : K - 1;
    if constexpr (cuda::std::tuple_element_t<k, Ins>::is_array)
      dst.v[u] = operand_read(operand_base(in, 0), static_cast<index_t>(i * src.kept.strides[k][0]));
    else
      dst.v[u] = in.load(0);
  }
}
template <int IPT, int Block, class Src, class IV, std::size_t... K>
__device__ __forceinline__ void pair_load_ivals(const Src& src, IV& iv, index_t i0, index_t nout,
                                                std::index_sequence<K...>) {
  (pair_load_ival<K, IPT, Block>(src, cuda::std::get<K>(iv), i0, nout), ...);
}

/// Stages elements jt .. jt + n - 1 of input k in its tile when it moves along j.
template <std::size_t k, int Block, int Tile, class Src>
__device__ __forceinline__ void pair_load_tile(const Src& src, unsigned char* smem, unsigned jmask, index_t jt, int n) {
  using Ins = decltype(src.ins);
  using In = cuda::std::tuple_element_t<k, Ins>;
  if constexpr (In::is_array) {
    if (jmask >> k & 1u) {
      using T = typename In::value_type;
      T* t = reinterpret_cast<T*>(smem + pair_off<Ins, Tile, k>);
      const auto& in = cuda::std::get<k>(src.ins);
      const auto st = src.red.strides[k][0];
      const auto b = operand_base(in, 0);  // in.p, or a computed operand
      for (int e = static_cast<int>(threadIdx.x); e < n; e += Block) t[e] = operand_read(b, static_cast<index_t>((jt + e) * st));
    }
  }
}
template <int Block, int Tile, class Src, std::size_t... K>
__device__ __forceinline__ void pair_load_tiles(const Src& src, unsigned char* smem, unsigned jmask, index_t jt, int n,
                                                std::index_sequence<K...>) {
  (pair_load_tile<K, Block, Tile>(src, smem, jmask, jt, n), ...);
}

/// Grid: x over blocks of Block * IPT outputs, y over chunks of the j range
/// (chunk_len each). `jmask` has bit k set for the inputs that move along j;
/// the others move along i alone (or not at all). Output i of chunk c is
/// stored as item c * K + i (a partial when the range is split).
template <int Block, int IPT, unsigned Mask, class Src, class Op, class Store>
__global__ void __launch_bounds__(Block)
    reduce_pairwise_kernel(Src src, Op op, Store store, index_t K, index_t R, index_t chunk_len, unsigned jmask) {
  using tu = pairwise_reduce_tuning;
  constexpr int Tile = tu::tile;
  using Ins = decltype(src.ins);
  using Acc = typename Src::acc_type;
  constexpr std::size_t NIN = cuda::std::tuple_size<Ins>::value;
  using seq = std::make_index_sequence<NIN>;
  __shared__ __align__(16) unsigned char smem[pair_tiles<Ins, Tile>::bytes];

  const index_t i0 = index_t(blockIdx.x) * Block * IPT + threadIdx.x;
  const index_t j_begin = index_t(blockIdx.y) * chunk_len;
  const index_t j_end = j_begin + chunk_len < R ? j_begin + chunk_len : R;

  // The outputs' own values, loaded once (clamped: threads past K compute a
  // copy of the last output and store nothing).
  typename pair_ivals<IPT, Ins>::type iv;
  pair_load_ivals<IPT, Block>(src, iv, i0, K, seq{});

  if constexpr (pair_wide_op<Op>::value) {
    // Sums: runs of sum_run elements in Acc, each added to a wide total.
    using ws = wide_sum<Acc, plus>;
    using W = typename ws::type;
    constexpr int Run = tu::sum_run;
    static_assert(Tile % Run == 0, "runs must not straddle tiles");
    W tot[IPT];
#pragma unroll
    for (int u = 0; u < IPT; ++u) tot[u] = ws::widen(Acc(0));
    for (index_t jt = j_begin; jt < j_end; jt += Tile) {
      const int n = static_cast<int>(j_end - jt < Tile ? j_end - jt : Tile);
      __syncthreads();  // the previous tile is no longer read
      pair_load_tiles<Block, Tile>(src, smem, jmask, jt, n, seq{});
      __syncthreads();
      int j0 = 0;
      for (; j0 + Run <= n; j0 += Run) {
        Acc acc[IPT];
#pragma unroll
        for (int u = 0; u < IPT; ++u) acc[u] = src.lift(pair_map<Mask>(src, smem, jmask, iv, u, j0, seq{}), jt + j0);
#pragma unroll
        for (int jj = 1; jj < Run; ++jj)
#pragma unroll
          for (int u = 0; u < IPT; ++u)
            acc[u] = op(acc[u], src.lift(pair_map<Mask>(src, smem, jmask, iv, u, j0 + jj, seq{}), jt + j0 + jj));
#pragma unroll
        for (int u = 0; u < IPT; ++u) tot[u] = typename ws::op{}(tot[u], ws::widen(acc[u]));
      }
      for (; j0 < n; ++j0)  // the last tile's short run
#pragma unroll
        for (int u = 0; u < IPT; ++u)
          tot[u] = typename ws::op{}(tot[u], ws::widen(src.lift(pair_map<Mask>(src, smem, jmask, iv, u, j0, seq{}), jt + j0)));
    }
#pragma unroll
    for (int u = 0; u < IPT; ++u) {
      const index_t i = i0 + index_t(u) * Block;
      if (j_end > j_begin && i < K) store(index_t(blockIdx.y) * K + i, i, static_cast<Acc>(ws::narrow(tot[u])));
    }
  } else {
    Acc lev[IPT][tu::levels];
    Acc res[IPT];
    unsigned long long tiles = 0;
    for (index_t jt = j_begin; jt < j_end; jt += Tile) {
      const int n = static_cast<int>(j_end - jt < Tile ? j_end - jt : Tile);
      __syncthreads();  // the previous tile is no longer read
      pair_load_tiles<Block, Tile>(src, smem, jmask, jt, n, seq{});
      __syncthreads();

      Acc acc[IPT];
#pragma unroll
      for (int u = 0; u < IPT; ++u) acc[u] = src.lift(pair_map<Mask>(src, smem, jmask, iv, u, 0, seq{}), jt);
#pragma unroll 4
      for (int jj = 1; jj < n; ++jj) {
#pragma unroll
        for (int u = 0; u < IPT; ++u)
          acc[u] = combine_in_order(op, acc[u], src.lift(pair_map<Mask>(src, smem, jmask, iv, u, jj, seq{}), jt + jj));
      }
      // Binary counter: level l holds the combination of 2^l earlier tiles.
      int l = 0;
      for (unsigned long long c = tiles; c & 1ull; c >>= 1, ++l)
#pragma unroll
        for (int u = 0; u < IPT; ++u) acc[u] = op(lev[u][l], acc[u]);
#pragma unroll
      for (int u = 0; u < IPT; ++u) lev[u][l] = acc[u];
      ++tiles;
    }
    // The counter's levels from the oldest (highest) down.
    bool have = false;
    for (int l = tu::levels - 1; l >= 0; --l)
      if (tiles >> l & 1ull) {
#pragma unroll
        for (int u = 0; u < IPT; ++u) res[u] = have ? op(res[u], lev[u][l]) : lev[u][l];
        have = true;
      }
#pragma unroll
    for (int u = 0; u < IPT; ++u) {
      const index_t i = i0 + index_t(u) * Block;
      if (have && i < K) store(index_t(blockIdx.y) * K + i, i, res[u]);
    }
  }
}

}  // namespace ufunc::detail
