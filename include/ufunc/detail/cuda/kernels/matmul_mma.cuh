// matmul variant "tensor_core" (issue 17, first step): 16-bit inputs (__half or
// __nv_bfloat16) on the tensor cores through mma.sync.m16n8k16, float
// accumulation, results stored as float, __half or __nv_bfloat16. The Ampere
// design (CUTLASS's multistage GEMM, the public "how to reach cuBLAS" worklogs):
// Hopper runs it, at a fraction of what wgmma reaches (see bench/NOTES.md).
//
// Per block: a (BM, BN) tile of C, marched along k in steps of BK.
//  - Global -> shared: cp.async 16-byte copies, STAGES k-tiles in flight (the
//    copy of tile t+STAGES-1 is issued before tile t is multiplied); rows or
//    chunks past m, n or k are zero-filled by the copy itself (src-size 0).
//  - Shared layout: A tiles (BM, BK) and B tiles (BK, BN) row-major, 16-byte
//    chunks XOR-swizzled within each row so that the 8 rows one ldmatrix reads
//    fall in 8 different bank groups (A: chunk ^ ((row >> 1) & 3) for 64-byte
//    rows; B: chunk ^ (row & 7)).
//  - Shared -> registers: ldmatrix.x4 for A (row-major 16x16 fragments) and
//    ldmatrix.x4.trans for B (two n8 x k16 fragments of a row-major B).
//  - Each warp owns a (WM, WN) tile: (WM/16) x (WN/8) mma.sync per k16 step,
//    all accumulators in registers; the epilogue converts and stores pairs.
// Fast path only: 16-byte aligned A and B, lda, ldb, n and k multiples of 8
// (whole chunks); the launcher sends other shapes to a plain kernel.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include "matmul_tc_common.cuh"

#include <atomic>
#include <cstdint>
#include <type_traits>

namespace ufunc::detail::mma {

template <class Tin, class Tout>
using args = tc::args<Tin, Tout>;

/// Tile configuration: block (BM, BN, BK), warps WARPS_M x WARPS_N, STAGES k-tiles in flight.
template <int BM, int BN, int BK, int WARPS_M, int WARPS_N, int STAGES>
struct config {
  static constexpr int bm = BM, bn = BN, bk = BK, warps_m = WARPS_M, warps_n = WARPS_N, stages = STAGES;
  static constexpr int threads = 32 * WARPS_M * WARPS_N;
  static constexpr int wm = BM / WARPS_M, wn = BN / WARPS_N;  // (WM, WN) per warp
  static constexpr int mt = wm / 16, nt = wn / 8;            // mma tiles per warp
  static constexpr int a_chunks = BM * BK / 8, b_chunks = BK * BN / 8;  // 16-byte chunks per stage
  static constexpr int smem_bytes = STAGES * (BM * BK + BK * BN) * 2;
  static constexpr int group_m = 8;  // block raster: 8 tile rows at a time (L2 reuse of B)
  static_assert(BK == 32, "A rows of 64 bytes: the swizzle below assumes 4 chunks a row");
  static_assert(BN % 64 == 0, "B rows of whole 128-byte lines (8 chunks) for the swizzle");
  static_assert(wm % 16 == 0 && wn % 16 == 0, "warp tiles of whole 16x16 A and k16xn16 B fragments");
  static_assert(a_chunks % threads == 0 && b_chunks % threads == 0, "tiles split evenly over threads");
};
using default_config = config<128, 256, 32, 2, 4, 4>;

using tc::smem_u32;
/// 16-byte asynchronous copy global -> shared; `valid` false zero-fills.
__device__ __forceinline__ void cp_async16(unsigned dst, const void* src, bool valid) {
  const int n = valid ? 16 : 0;
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(dst), "l"(src), "r"(n));
}
__device__ __forceinline__ void cp_async_commit() { asm volatile("cp.async.commit_group;\n" ::); }
template <int N>
__device__ __forceinline__ void cp_async_wait() {
  asm volatile("cp.async.wait_group %0;\n" ::"n"(N));
}
__device__ __forceinline__ void ldmatrix_x4(unsigned (&r)[4], unsigned addr) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(addr));
}
__device__ __forceinline__ void ldmatrix_x4_trans(unsigned (&r)[4], unsigned addr) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0,%1,%2,%3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(addr));
}
/// d += a @ b for one m16n8k16 tile (row-major A fragment, column-major B fragment).
template <class Tin>
__device__ __forceinline__ void mma16816(float (&d)[4], const unsigned (&a)[4], unsigned b0, unsigned b1) {
  if constexpr (std::is_same_v<Tin, __nv_bfloat16>)
    asm volatile(
        "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
        "{%0,%1,%2,%3};\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
  else
    asm volatile(
        "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
        "{%0,%1,%2,%3};\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}

// Byte offsets of chunk (row, chunk) in a stage's swizzled A or B tile.
template <class Cfg>
__device__ __forceinline__ int a_offset(int row, int chunk) {
  return (row * (Cfg::bk / 8) + (chunk ^ ((row >> 1) & 3))) * 16;
}
template <class Cfg>
__device__ __forceinline__ int b_offset(int row, int chunk) {
  return (row * (Cfg::bn / 8) + (chunk ^ (row & 7))) * 16;
}

using tc::store_pair;

template <class Cfg, class Tin, class Tout>
__global__ void __launch_bounds__(Cfg::threads, 1) gemm_kernel(args<Tin, Tout> p) {
  constexpr int BM = Cfg::bm, BN = Cfg::bn, BK = Cfg::bk, S = Cfg::stages, NT = Cfg::threads;
  constexpr int A_STAGE = BM * BK * 2, B_STAGE = BK * BN * 2;  // bytes
  extern __shared__ __align__(128) unsigned char smem[];
  const unsigned a_base = smem_u32(smem), b_base = a_base + S * A_STAGE;

  const int tid = static_cast<int>(threadIdx.x), lane = tid & 31, warp = tid >> 5;
  const int warp_m = warp / Cfg::warps_n, warp_n = warp % Cfg::warps_n;

  // Block raster: consecutive blocks walk group_m tile rows before moving right.
  const int tiles_m = static_cast<int>((p.m + BM - 1) / BM), tiles_n = static_cast<int>((p.n + BN - 1) / BN);
  const int per_group = Cfg::group_m * tiles_n;
  const int group = static_cast<int>(blockIdx.x) / per_group;
  const int first_m = group * Cfg::group_m;
  const int group_rows = tiles_m - first_m < Cfg::group_m ? tiles_m - first_m : Cfg::group_m;
  const int in_group = static_cast<int>(blockIdx.x) - group * per_group;
  const long long row0 = static_cast<long long>(first_m + in_group % group_rows) * BM;
  const long long col0 = static_cast<long long>(in_group / group_rows) * BN;

  // This split's k-range (the whole k without split-k).
  const long long kb = p.k_chunk > 0 ? static_cast<long long>(blockIdx.y) * p.k_chunk : 0;
  const long long klen = p.k_chunk > 0 ? (p.k - kb < p.k_chunk ? p.k - kb : p.k_chunk) : p.k;
  for (long long z = blockIdx.z; z < p.batch; z += gridDim.z) {
    const Tin* A = p.a + z * p.stride_a + kb;
    const Tin* B = p.b + z * p.stride_b + kb * p.ldb;
    Tout* C = p.c + z * p.stride_c + static_cast<long long>(blockIdx.y) * p.split_stride;
    const int ktiles = static_cast<int>((klen + BK - 1) / BK);

    // Issues the copies of k-tile t into stage s (zero-filled past m, n, k).
    auto load_tile = [&](int t, int s) {
      const long long k0 = static_cast<long long>(t) * BK;
#pragma unroll
      for (int i = 0; i < Cfg::a_chunks / NT; ++i) {
        const int c = tid + i * NT, r = c / (BK / 8), ch = c % (BK / 8);
        const long long gr = row0 + r, gk = k0 + ch * 8;
        const bool ok = gr < p.m && gk < klen;
        cp_async16(a_base + s * A_STAGE + a_offset<Cfg>(r, ch), ok ? A + gr * p.lda + gk : A, ok);
      }
#pragma unroll
      for (int i = 0; i < Cfg::b_chunks / NT; ++i) {
        const int c = tid + i * NT, r = c / (BN / 8), ch = c % (BN / 8);
        const long long gk = k0 + r, gc = col0 + ch * 8;
        const bool ok = gk < klen && gc < p.n;
        cp_async16(b_base + s * B_STAGE + b_offset<Cfg>(r, ch), ok ? B + gk * p.ldb + gc : B, ok);
      }
    };

    float acc[Cfg::mt][Cfg::nt][4];
#pragma unroll
    for (int i = 0; i < Cfg::mt; ++i)
#pragma unroll
      for (int j = 0; j < Cfg::nt; ++j)
#pragma unroll
        for (int e = 0; e < 4; ++e) acc[i][j][e] = 0.f;

#pragma unroll
    for (int s = 0; s < S - 1; ++s) {
      if (s < ktiles) load_tile(s, s);
      cp_async_commit();  // one group per stage, empty or not: the wait count stays fixed
    }

    for (int t = 0; t < ktiles; ++t) {
      cp_async_wait<S - 2>();  // tile t has landed (this thread's copies)...
      __syncthreads();         // ...and everyone's; and every warp is done with tile t-1's stage
      if (t + S - 1 < ktiles) load_tile(t + S - 1, (t + S - 1) % S);
      cp_async_commit();
      const int s = t % S;
      const unsigned as = a_base + s * A_STAGE, bs = b_base + s * B_STAGE;
#pragma unroll
      for (int kk = 0; kk < BK / 16; ++kk) {
        unsigned af[Cfg::mt][4];
#pragma unroll
        for (int i = 0; i < Cfg::mt; ++i) {
          // lanes 0-15: rows 0-15 at k chunk 2kk; lanes 16-31: the same rows at chunk 2kk+1
          const int r = warp_m * Cfg::wm + i * 16 + (lane & 15);
          ldmatrix_x4(af[i], as + a_offset<Cfg>(r, 2 * kk + (lane >> 4)));
        }
#pragma unroll
        for (int j = 0; j < Cfg::nt; j += 2) {
          // matrices: (k 0-7, n 0-7), (k 8-15, n 0-7), (k 0-7, n 8-15), (k 8-15, n 8-15)
          const int r = kk * 16 + (lane & 7) + ((lane >> 3) & 1) * 8;
          const int ch = (warp_n * Cfg::wn + j * 8) / 8 + (lane >> 4);
          unsigned bf[4];
          ldmatrix_x4_trans(bf, bs + b_offset<Cfg>(r, ch));
#pragma unroll
          for (int i = 0; i < Cfg::mt; ++i) {
            mma16816<Tin>(acc[i][j], af[i], bf[0], bf[1]);
            mma16816<Tin>(acc[i][j + 1], af[i], bf[2], bf[3]);
          }
        }
      }
    }
    cp_async_wait<0>();
    __syncthreads();  // the next batch entry's copies reuse the stages

    // Epilogue: thread holds rows lane/4 and lane/4+8, columns 2*(lane%4)+{0,1} of each n8 tile.
#pragma unroll
    for (int i = 0; i < Cfg::mt; ++i) {
#pragma unroll
      for (int j = 0; j < Cfg::nt; ++j) {
        const long long r = row0 + warp_m * Cfg::wm + i * 16 + (lane >> 2);
        const long long c = col0 + warp_n * Cfg::wn + j * 8 + 2 * (lane & 3);
        if (c >= p.n) continue;
        const bool both = c + 1 < p.n;
        if (r < p.m) store_pair(C + r * p.ldc + c, acc[i][j][0], acc[i][j][1], both);
        if (r + 8 < p.m) store_pair(C + (r + 8) * p.ldc + c, acc[i][j][2], acc[i][j][3], both);
      }
    }
  }
}

/// True when the tensor-core kernel takes these operands: 16-byte aligned A and
/// B, lda, ldb, n and k multiples of 8, and an even ldc with a 4-byte aligned C
/// (pair stores).
template <class Tin, class Tout>
bool fits(const args<Tin, Tout>& p) {
  auto al = [](const void* q, unsigned b) { return reinterpret_cast<std::uintptr_t>(q) % b == 0; };
  return al(p.a, 16) && al(p.b, 16) && al(p.c, 2 * sizeof(Tout)) && p.lda % 8 == 0 && p.ldb % 8 == 0 &&
         p.n % 8 == 0 && p.k % 8 == 0 && p.ldc % 2 == 0 && p.stride_a % 8 == 0 && p.stride_b % 8 == 0 &&
         p.stride_c % 2 == 0;
}

}  // namespace ufunc::detail::mma
