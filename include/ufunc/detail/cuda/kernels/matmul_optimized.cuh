// matmul variant "optimized": a register-blocked SIMT GEMM in the design of
// CUTLASS's SIMT SGEMM and siboehm's warp-tiled kernel, for FP32 and FP64 on
// the CUDA cores (no tensor cores, so float results are plain FP32 arithmetic).
//
// Per block: a (BM, BN) tile of C, marched along k in steps of BK.
//  - Global -> shared: each thread loads 16-byte chunks of the next A and B
//    k-tiles into registers while the current tile is being multiplied
//    (register prefetch), then stores them into the other half of a
//    double-buffered shared-memory tile: one barrier per k-tile.
//  - A is stored transposed, (BK, BM), so that a thread's column of A at one k
//    is contiguous and read with 16-byte loads like its row of B.
//  - Shared -> registers: each thread owns a (4 QM) x (4 QN) block of C split
//    into QM x QN quadrants of 4x4 (spread over the tile), reads its A and B
//    values for step k+1 while doing the FMAs of step k (fragment double
//    buffering), and keeps all its sums in registers.
//  - Lanes are laid out 4 (m) x 8 (n) per warp: the 8 lanes of a quarter-warp
//    read one A address (broadcast) and 8 consecutive B vectors (128 bytes), so
//    fragment loads are free of bank conflicts; A's transposed stores are too,
//    thanks to a row padding of one 16-byte vector.
//  - Edges: loads past m, n or k are zero-filled (whole 16-byte chunks when in
//    range, element by element at the boundary) and stores are guarded, so
//    every size is correct; unaligned leading dims take the scalar-load
//    instantiation (Vec = false).
//  - Few tiles (small m*n, large k): split-k. Each split computes a k-range into
//    a workspace, and matmul_splitk_reduce.cuh sums the splits in a fixed
//    order (deterministic results).
#pragma once

#include "../../linalg_plan.hpp"
#include "linalg_common.cuh"
#include "matmul_splitk_reduce.cuh"

#include <climits>

namespace ufunc::detail {

/// Tile shape of the optimized kernel. Each thread owns (4*QM) x (4*QN) results:
/// QM x QN quadrants of 4x4, the quadrants BM/QM rows and BN/QN columns apart,
/// so threads = (BM / 4QM) * (BN / 4QN). `min_blocks` goes to __launch_bounds__
/// (with 2, 256 threads are capped at 128 registers so that two blocks fit).
template <class T, int BM, int BN, int BK, int MinBlocks, int QM = 2, int QN = 2>
struct matmul_optimized_config {
  using value_type = T;
  static constexpr int bm = BM, bn = BN, bk = BK, min_blocks = MinBlocks, qm = QM, qn = QN;
  static constexpr int tm = 4 * QM, tn = 4 * QN;  // results per thread
  static constexpr int threads = (bm / tm) * (bn / tn);
  static constexpr int vec = static_cast<int>(16 / sizeof(T));  // elements per 16-byte access
  static constexpr int pad_a = vec;                             // A row padding: conflict-free transposed stores
  static constexpr int a_chunks = bm * bk / vec / threads;      // 16-byte A chunks each thread loads per k-tile
  static constexpr int b_chunks = bk * bn / vec / threads;
  static constexpr int group_m = 8;  // block raster: walk 8 tile rows at a time (L2 reuse)
  static_assert((bm / tm) % 4 == 0 && (bn / tn) % 8 == 0, "warps are 4 x 8 threads");
  static_assert(bk % vec == 0 && bn % vec == 0 && bk % 2 == 0, "k-tiles hold whole 16-byte chunks; bk even");
  static_assert(a_chunks >= 1 && a_chunks * vec * threads == bm * bk, "A tile splits evenly over threads");
  static_assert(b_chunks >= 1 && b_chunks * vec * threads == bk * bn, "B tile splits evenly over threads");
  static_assert(sizeof(T) * 4 % 16 == 0, "4-element fragments are whole 16-byte vectors");
};

/// Tuned on an H100 (bench/NOTES.md, bench_linalg's sweep): float 128x128x16,
/// 256 threads of 8x8 results, one block per SM with up to 255 registers (no
/// spills; 0.89 x cuBLAS at 4096^3, against 0.79-0.86 for 128x128x8 with 2
/// blocks/SM and 128 registers, and 0.84-0.86 for 8x16 and 16x8 thread tiles);
/// double 64x64x8, 64 threads (not tuned: correctness, register blocking).
template <class T>
struct matmul_optimized_tuning;
template <>
struct matmul_optimized_tuning<float> {
  using config = matmul_optimized_config<float, 128, 128, 16, 1>;
  static constexpr int max_splits = 16;
  static constexpr int min_k_tiles_per_split = 32;  // split-k only while each split still has 32 k-tiles
};
template <>
struct matmul_optimized_tuning<double> {
  using config = matmul_optimized_config<double, 64, 64, 8, 4>;
  static constexpr int max_splits = 16;
  static constexpr int min_k_tiles_per_split = 32;
};

/// One read-only 16-byte load of N packed elements.
template <class T, int N>
__device__ __forceinline__ vec_reg<T, N> ldg_vec(const vec_reg<T, N>* p) {
  vec_reg<T, N> r;
  if constexpr (sizeof(T) == 4 && N == 4) {
    const float4 v = __ldg(reinterpret_cast<const float4*>(p));
    std::memcpy(&r, &v, 16);
  } else if constexpr (sizeof(T) == 8 && N == 2) {
    const double2 v = __ldg(reinterpret_cast<const double2*>(p));
    std::memcpy(&r, &v, 16);
  } else {
    r = *p;
  }
  return r;
}

/// Loads N elements at p into r: all of them when `valid` >= N (one 16-byte
/// load when Vec), else the first `valid` (0..N-1) and zeros for the rest.
template <bool Vec, class T, int N>
__device__ __forceinline__ void load_chunk(T (&r)[N], const T* p, int valid) {
  if (valid >= N) {
    if constexpr (Vec) {
      const auto v = ldg_vec(reinterpret_cast<const vec_reg<T, N>*>(p));
#pragma unroll
      for (int e = 0; e < N; ++e) r[e] = v.v[e];
    } else {
#pragma unroll
      for (int e = 0; e < N; ++e) r[e] = __ldg(p + e);
    }
  } else {
#pragma unroll
    for (int e = 0; e < N; ++e) r[e] = e < valid ? __ldg(p + e) : T(0);
  }
}

template <class Cfg, bool Vec>
__global__ void __launch_bounds__(Cfg::threads, Cfg::min_blocks)
    matmul_optimized_kernel(gemm_args<typename Cfg::value_type> p, index_t k_chunk, index_t split_stride,
                            bool vec_c) {
  using T = typename Cfg::value_type;
  constexpr int BM = Cfg::bm, BN = Cfg::bn, BK = Cfg::bk, V = Cfg::vec, NT = Cfg::threads;
  constexpr int LA = Cfg::a_chunks, LB = Cfg::b_chunks;
  __shared__ __align__(16) T as[2][BK][BM + Cfg::pad_a];  // (BK, BM) per buffer: A transposed
  __shared__ __align__(16) T bs[2][BK][BN];               // (BK, BN) per buffer
  using quad = vec_reg<T, 4>;

  const int tid = static_cast<int>(threadIdx.x);

  // This block's tile of C. Consecutive block ids walk down group_m tile rows
  // before moving right, so blocks resident at the same time share B columns.
  const int tiles_m = static_cast<int>((p.m + BM - 1) / BM), tiles_n = static_cast<int>((p.n + BN - 1) / BN);
  const int per_group = Cfg::group_m * tiles_n;
  const int group = static_cast<int>(blockIdx.x) / per_group;
  const int first_m = group * Cfg::group_m;
  const int group_rows = imin32(tiles_m - first_m, Cfg::group_m);
  const int in_group = static_cast<int>(blockIdx.x) - group * per_group;
  const int tile_m = first_m + in_group % group_rows, tile_n = in_group / group_rows;

  // This split's k-range.
  const index_t k_begin = static_cast<index_t>(blockIdx.y) * k_chunk;
  const int k_len = static_cast<int>(imax(imin(p.k, k_begin + k_chunk) - k_begin, 0));  // < 2^31 (the launcher splits larger k)
  const int ntiles = (k_len + BK - 1) / BK;

  // Which results this thread owns: rows q*BM/QM + row0..+3 for q < QM, columns
  // q*BN/QN + col0..+3 for q < QN; a warp is 4 (m) x 8 (n) threads.
  constexpr int QM = Cfg::qm, QN = Cfg::qn, TM = Cfg::tm, TN = Cfg::tn;
  constexpr int warps_n = BN / TN / 8;
  const int warp = tid / 32, lane = tid % 32;
  const int row0 = ((warp / warps_n) * 4 + lane / 8) * 4;
  const int col0 = ((warp % warps_n) * 8 + lane % 8) * 4;

  for (index_t z = blockIdx.z; z < p.batch.count; z += gridDim.z) {
    index_t off[3];
    p.batch.offsets(z, off);
    __syncthreads();  // a previous batch entry's last fragment reads are done before the tiles are refilled

    // The 16-byte chunks of each k-tile this thread loads: A chunk u is row
    // a_row, k a_kc..+V; B chunk u is k-row b_kr, columns b_col..+V. Inside the
    // matrix a chunk is whole (or, at the right edge of B, b_cols wide); only
    // the k-tile that crosses k_len needs per-element bounds (a block-uniform
    // branch, so the common path keeps no per-thread k counters).
    const T* pa[LA];
    const T* pb[LB];
    int a_full[LA], b_cols[LB], a_st[LA], b_st[LB];
#pragma unroll
    for (int u = 0; u < LA; ++u) {
      const int q = tid + u * NT, a_row = q / (BK / V), a_kc = (q % (BK / V)) * V;
      const index_t row = index_t(tile_m) * BM + a_row;
      const bool ok = row < p.m;
      pa[u] = p.a + off[0] + (ok ? row : 0) * p.lda + k_begin + a_kc;
      a_full[u] = ok ? V : 0;
      a_st[u] = a_kc * (BM + Cfg::pad_a) + a_row;
    }
#pragma unroll
    for (int u = 0; u < LB; ++u) {
      const int q = tid + u * NT, b_kr = q / (BN / V), b_col = (q % (BN / V)) * V;
      const index_t col = index_t(tile_n) * BN + b_col;
      pb[u] = p.b + off[1] + (k_begin + b_kr) * p.ldb + col;
      b_cols[u] = static_cast<int>(imin(imax(p.n - col, 0), V));
      b_st[u] = b_kr * BN + b_col;
    }

    T ra[LA][V], rb[LB][V];
    // Global -> registers: k-tile t of this split (pointers advance by a tile).
    auto load_tile = [&](int t) {
      const int k0 = t * BK;  // relative to k_begin
      if (k0 + BK <= k_len) {
#pragma unroll
        for (int u = 0; u < LA; ++u) load_chunk<Vec>(ra[u], pa[u], a_full[u]);
#pragma unroll
        for (int u = 0; u < LB; ++u) load_chunk<Vec>(rb[u], pb[u], b_cols[u]);
      } else {
        const int rem = k_len - k0;  // 1 .. BK-1 valid k in this tile
#pragma unroll
        for (int u = 0; u < LA; ++u) {
          const int a_kc = ((tid + u * NT) % (BK / V)) * V;
          load_chunk<Vec>(ra[u], pa[u], a_full[u] ? imin32(imax32(rem - a_kc, 0), V) : 0);
        }
#pragma unroll
        for (int u = 0; u < LB; ++u) {
          const int b_kr = (tid + u * NT) / (BN / V);
          load_chunk<Vec>(rb[u], pb[u], b_kr < rem ? b_cols[u] : 0);
        }
      }
#pragma unroll
      for (int u = 0; u < LA; ++u) pa[u] += BK;
#pragma unroll
      for (int u = 0; u < LB; ++u) pb[u] += BK * p.ldb;
    };
    // Registers -> shared buffer `buf` (A transposed).
    auto store_tile = [&](int buf) {
      T* sa = &as[buf][0][0];
      T* sb = &bs[buf][0][0];
#pragma unroll
      for (int u = 0; u < LA; ++u)
#pragma unroll
        for (int e = 0; e < V; ++e) sa[a_st[u] + e * (BM + Cfg::pad_a)] = ra[u][e];
#pragma unroll
      for (int u = 0; u < LB; ++u) {
        vec_reg<T, V> v;
#pragma unroll
        for (int e = 0; e < V; ++e) v.v[e] = rb[u][e];
        *reinterpret_cast<vec_reg<T, V>*>(sb + b_st[u]) = v;
      }
    };
    T fa[2][TM], fb[2][TN];
    // Shared buffer `buf`, step kk -> fragment registers.
    auto load_frag = [&](int buf, int kk, T (&a)[TM], T (&b)[TN]) {
#pragma unroll
      for (int q = 0; q < QM; ++q) {
        const quad v = *reinterpret_cast<const quad*>(&as[buf][kk][q * (BM / QM) + row0]);
#pragma unroll
        for (int e = 0; e < 4; ++e) a[4 * q + e] = v.v[e];
      }
#pragma unroll
      for (int q = 0; q < QN; ++q) {
        const quad v = *reinterpret_cast<const quad*>(&bs[buf][kk][q * (BN / QN) + col0]);
#pragma unroll
        for (int e = 0; e < 4; ++e) b[4 * q + e] = v.v[e];
      }
    };

    T acc[TM][TN];
#pragma unroll
    for (int i = 0; i < TM; ++i)
#pragma unroll
      for (int j = 0; j < TN; ++j) acc[i][j] = T(0);

    if (ntiles > 0) {
      load_tile(0);
      store_tile(0);
      __syncthreads();  // k-tile 0 is in buffer 0
      load_frag(0, 0, fa[0], fb[0]);
    }
    int buf = 0;
    for (int t = 0; t < ntiles; ++t) {
      const bool more = t + 1 < ntiles;
      if (more) load_tile(t + 1);  // in flight during this tile's FMAs
#pragma unroll
      for (int kk = 0; kk < BK; ++kk) {
        if (kk < BK - 1) {
          load_frag(buf, kk + 1, fa[(kk + 1) & 1], fb[(kk + 1) & 1]);
        } else if (more) {
          // Buffer buf^1 was last read during the previous k-tile, before the
          // barrier that ended it, so it can be overwritten now.
          store_tile(buf ^ 1);
          __syncthreads();  // the next k-tile is complete in buf^1
          load_frag(buf ^ 1, 0, fa[0], fb[0]);
        }
#pragma unroll
        for (int i = 0; i < TM; ++i)
#pragma unroll
          for (int j = 0; j < TN; ++j) acc[i][j] = fma(fa[kk & 1][i], fb[kk & 1][j], acc[i][j]);
      }
      buf ^= 1;
    }

    // Epilogue: 4-wide rows of each quadrant, one 16-byte store each where aligned.
    p.batch.offsets(z, off);  // recomputed rather than kept live through the main loop
    const index_t m0 = index_t(tile_m) * BM, n0 = index_t(tile_n) * BN;
    T* c = p.c + off[2] + static_cast<index_t>(blockIdx.y) * split_stride;
#pragma unroll
    for (int i = 0; i < TM; ++i) {
      const index_t r = m0 + (i / 4) * (BM / QM) + row0 + i % 4;
      if (r >= p.m) continue;
      T* crow = c + r * p.ldc;
#pragma unroll
      for (int h = 0; h < QN; ++h) {
        const index_t cc = n0 + h * (BN / QN) + col0;
        if (vec_c && cc + 4 <= p.n) {
          quad v;
#pragma unroll
          for (int e = 0; e < 4; ++e) v.v[e] = acc[i][h * 4 + e];
          *reinterpret_cast<quad*>(crow + cc) = v;
        } else {
#pragma unroll
          for (int e = 0; e < 4; ++e)
            if (cc + e < p.n) crow[cc + e] = acc[i][h * 4 + e];
        }
      }
    }
  }
}

}  // namespace ufunc::detail
