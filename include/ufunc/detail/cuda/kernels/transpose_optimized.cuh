// transpose variant "optimized": a (TILE, TILE) tile per block iteration, like
// the tiled kernel, but each thread moves TILE*TILE/256 elements with 16-byte
// accesses on both sides where the layout allows (W elements per access), and
// issues all of its loads before the first store to shared memory, so a block
// has a whole tile (16 KiB for float) of reads in flight. That memory-level
// parallelism, not instruction count, is what a bandwidth-bound transpose
// needs to approach copy speed on HBM3; the seed's tiled kernel keeps 4 KiB per
// block in flight and uses 4-byte accesses.
//
// W > 1 requires (checked by the launcher): the source unit-strided along i,
// the destination along j, and every row start 16-byte aligned. Otherwise W = 1:
// single-element accesses, still coalesced, any strides (e.g. 8191 x 8193).
// Edge tiles fall back to per-element accesses where a vector would cross the
// matrix edge.
#pragma once

#include "../../linalg_plan.hpp"
#include "linalg_common.cuh"

namespace ufunc::detail {

template <class S>
struct transpose_optimized_tuning {
  static constexpr int threads = 256;
  static constexpr int tile = sizeof(S) <= 8 ? 64 : 32;  // at most 33 KiB of shared memory
  /// Elements per 16-byte access (1 for 16-byte and odd-sized elements).
  static constexpr int vec = (sizeof(S) < 16 && 16 % sizeof(S) == 0) ? static_cast<int>(16 / sizeof(S)) : 1;
  /// Tile order: consecutive blocks advance along j (the destination's rows)
  /// when true, along i otherwise; each block moves `strip` consecutive tiles.
  /// j first: blocks running together complete each other's destination row
  /// segments, so with unaligned rows (8191 x 8193) the partial 32-byte sectors
  /// at tile edges are merged in L2 rather than written to DRAM piecewise
  /// (H100: 0.86 x copy against 0.76 i first; no difference when aligned).
  static constexpr bool j_fast = true;
  static constexpr int strip = 1;
};

template <class S, int W, bool JFast = transpose_optimized_tuning<S>::j_fast,
          int Strip = transpose_optimized_tuning<S>::strip>
__global__ void __launch_bounds__(transpose_optimized_tuning<S>::threads)
    transpose_optimized_kernel(copy_args p) {
  using tun = transpose_optimized_tuning<S>;
  constexpr int TILE = tun::tile, NT = tun::threads;
  constexpr int PER = TILE * TILE / W / NT;  // accesses per thread per phase
  static_assert(PER >= 1 && PER * W * NT == TILE * TILE, "the tile splits evenly over the threads");
  static_assert(W == 1 || sizeof(S) * W == 16, "vector accesses are 16 bytes");
  __shared__ S tile[TILE][TILE + 1];  // (j, i); +1 element: column reads spread over the banks
  const S* __restrict__ src = static_cast<const S*>(p.src);
  S* __restrict__ dst = static_cast<S*>(p.dst);
  const int tid = static_cast<int>(threadIdx.x);
  const index_t tiles_i = (p.ni + TILE - 1) / TILE, tiles_j = (p.nj + TILE - 1) / TILE;
  const index_t fast_tiles = JFast ? tiles_j : tiles_i, slow_tiles = JFast ? tiles_i : tiles_j;
  const index_t strips = (fast_tiles + Strip - 1) / Strip;

  // Thread -> accesses: consecutive threads take consecutive W-element pieces
  // of a tile row; a thread's PER pieces are STEP rows apart, at one offset.
  constexpr int PIECES = TILE / W, STEP = NT / PIECES;
  static_assert(NT % PIECES == 0, "whole rows per pass");
  const int lane_off = (tid % PIECES) * W, row_of = tid / PIECES;

  for (index_t z = blockIdx.z; z < p.batch.count; z += gridDim.z) {
    index_t off[2];
    p.batch.offsets(z, off);
    for (index_t blk = blockIdx.x; blk < strips * slow_tiles; blk += gridDim.x)
      for (int st = 0; st < Strip; ++st) {
        const index_t slow = blk / strips, fast = blk % strips * Strip + st;
        if (fast >= fast_tiles) break;  // uniform across the block
        const index_t i0 = (JFast ? slow : fast) * TILE, j0 = (JFast ? fast : slow) * TILE;
        // Read phase: piece u is tile row jj = row_of + u*STEP (source row j),
        // elements i = i0 + lane_off ..+W. All loads before any use.
        S r[PER][W];
        {
          const index_t i = i0 + lane_off;
          const int ni_left = static_cast<int>(imin(imax(p.ni - i, 0), W));
          const S* s = src + off[1] + i * p.s_i + (j0 + row_of) * p.s_j;
          const index_t s_step = STEP * p.s_j;
          index_t j = j0 + row_of;
#pragma unroll
          for (int u = 0; u < PER; ++u, j += STEP, s += s_step) {
            const int valid = j < p.nj ? ni_left : 0;
            if constexpr (W > 1) {
              if (valid == W) {
                const uint4 v = __ldg(reinterpret_cast<const uint4*>(s));
                memcpy(r[u], &v, 16);
                continue;
              }
            }
#pragma unroll
            for (int e = 0; e < W; ++e)
              if (e < valid) r[u][e] = s[e * p.s_i];
          }
        }
#pragma unroll
        for (int u = 0; u < PER; ++u)
#pragma unroll
          for (int e = 0; e < W; ++e) tile[row_of + u * STEP][lane_off + e] = r[u][e];  // lanes past the edge are never read back
        __syncthreads();  // the tile is complete before it is read across
        // Write phase: piece u is destination row i = i0 + row_of + u*STEP,
        // elements j = j0 + lane_off ..+W, gathered down a tile column.
        {
          const index_t j = j0 + lane_off;
          const int nj_left = static_cast<int>(imin(imax(p.nj - j, 0), W));
          S* d = dst + off[0] + (i0 + row_of) * p.d_i + j * p.d_j;
          const index_t d_step = STEP * p.d_i;
          index_t i = i0 + row_of;
#pragma unroll
          for (int u = 0; u < PER; ++u, i += STEP, d += d_step) {
            const int valid = i < p.ni ? nj_left : 0;
            const int ii = row_of + u * STEP;
            if constexpr (W > 1) {
              if (valid == W) {
                S v[W];
#pragma unroll
                for (int e = 0; e < W; ++e) v[e] = tile[lane_off + e][ii];
                uint4 w;
                memcpy(&w, v, 16);
                *reinterpret_cast<uint4*>(d) = w;
                continue;
              }
            }
#pragma unroll
            for (int e = 0; e < W; ++e)
              if (e < valid) d[e * p.d_j] = tile[lane_off + e][ii];
          }
        }
        __syncthreads();  // everyone has read the tile before the next one overwrites it
      }
  }
}

}  // namespace ufunc::detail
