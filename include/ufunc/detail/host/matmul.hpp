// Host backend of matmul: the BLIS/GotoBLAS scheme in plain C++. The result is
// split into (mc, nc) tiles, one work item each (parallel.hpp). Within a tile,
// k advances in kc-deep panels: the block of A is packed into MR-row slivers
// (kc x MR: the broadcast operand, which stays in L1 while every sliver of B
// passes it) and the panel of B into NR-column slivers (kc x NR, the vector
// operand: the panel in L2), both converted to the accumulator type (float for
// the 16-bit types). The other order (B's 32 KiB sliver held in L1) ran at half
// the speed. A micro-kernel keeps an MR x NR tile of C in registers for a whole
// panel: each loaded element of B feeds MR multiply-adds, each of A NR. MR and NR
// follow the vector registers of the instruction set chosen at run time
// (simd.hpp): 12 x 2 vectors with AVX-512, 6 x 2 with AVX2, 4 x 2 with SSE2,
// written with GCC's and clang's vector types so that the tile stays in
// registers. The clones may fuse multiply-adds (FMA), so the last bits of a
// product depend on the CPU, as with a BLAS; the order of the sums does not
// (each element: panel after panel, p in order within a panel), so results are
// the same at every thread count.
#pragma once

#include <algorithm>
#include <cstring>
#include <type_traits>

#include "../../stream.hpp"
#include "../linalg_plan.hpp"
#include "parallel.hpp"
#include "simd.hpp"
#include "temp.hpp"

namespace ufunc::detail::host {

struct matmul_tuning {
  static constexpr index_t mc = 192;  // rows of C per work item (a multiple of every MR)
  static constexpr index_t nc = 512;  // columns of C per work item (a multiple of every NR)
  static constexpr index_t kc = 256;  // k panel: a sliver of A is kc x MR (L1), the panel of B kc x nc (L2)
};

/// The micro-kernel's shape for accumulator type A and vector width W bytes.
template <class A, int W>
struct micro_shape {
  static constexpr int nr = 2 * W / static_cast<int>(sizeof(A));
  static constexpr int mr = W == 64 ? 12 : W == 32 ? 6 : 4;
  static_assert(matmul_tuning::mc % mr == 0 && matmul_tuning::nc % nr == 0, "tiles of whole slivers");
};

// GCC's and clang's vector extensions (not nvcc's host pass, nor other compilers:
// they take the plain loops). The plain loops' acc[i][j] += a[i] * b[j] came out
// of GCC 12's AVX2 clone with vpermd shuffles and 4 of the 12 accumulators
// spilled to the stack every iteration (72 GFLOP/s on 2 cores of the EPYC VM at
// 2048^3); written with vector types, the inner loop is 2 loads of B, MR
// broadcasts of A and 2 MR FMAs, the tile in registers.
#if (defined(__GNUC__) || defined(__clang__)) && !defined(__CUDACC__)
#  define UFUNC_HOST_VECTOR_EXT 1
#else
#  define UFUNC_HOST_VECTOR_EXT 0
#endif

/// c[0..MR)[0..NR) (row stride ldc) += the product of packed slivers ap (kn x MR)
/// and bp (kn x NR). NR is two vectors of the clone's width.
template <int MR, int NR, class A>
UFUNC_HOST_INLINE inline void micro_kernel(const A* __restrict__ ap, const A* __restrict__ bp, index_t kn,
                                           A* __restrict__ c, index_t ldc) {
#if UFUNC_HOST_VECTOR_EXT
  if constexpr (std::is_same_v<A, float> || std::is_same_v<A, double>) {
    constexpr int L = NR / 2;  // lanes of one vector
    typedef A vec __attribute__((vector_size(L * sizeof(A))));
    vec acc[MR][2];
    for (int i = 0; i < MR; ++i) acc[i][0] = acc[i][1] = vec{};
    for (index_t q = 0; q < kn; ++q) {
      vec b0, b1;
      std::memcpy(&b0, bp + q * NR, sizeof(vec));
      std::memcpy(&b1, bp + q * NR + L, sizeof(vec));
      const A* a = ap + q * MR;
UFUNC_HOST_UNROLL(16)
      for (int i = 0; i < MR; ++i) {
        const A x = a[i];  // a scalar operand of a vector operation: broadcast
        acc[i][0] += b0 * x;
        acc[i][1] += b1 * x;
      }
    }
UFUNC_HOST_UNROLL(16)
    for (int i = 0; i < MR; ++i)
UFUNC_HOST_UNROLL(2)
      for (int h = 0; h < 2; ++h) {
        vec t;
        std::memcpy(&t, c + i * ldc + h * L, sizeof(vec));
        t += acc[i][h];
        std::memcpy(c + i * ldc + h * L, &t, sizeof(vec));
      }
    return;
  }
#endif
  A acc[MR][NR] = {};
  for (index_t q = 0; q < kn; ++q) {
    const A* b = bp + q * NR;
    const A* a = ap + q * MR;
UFUNC_HOST_UNROLL(16)
    for (int i = 0; i < MR; ++i)
UFUNC_HOST_UNROLL(64)
      for (int j = 0; j < NR; ++j) acc[i][j] += a[i] * b[j];
  }
  for (int i = 0; i < MR; ++i)
    for (int j = 0; j < NR; ++j) c[i * ldc + j] += acc[i][j];
}

/// One work item: the (rows, w) tile of C at (i0, j0) of batch z, computed into
/// the slot's scratch tile (mc x nc of A) and written to C once.
template <int MR, int NR, class T, class A>
UFUNC_HOST_INLINE inline void matmul_tile(const gemm_args<T>& p, index_t z, index_t i0, index_t j0, A* scratch) {
  using tun = matmul_tuning;
  A* tile = scratch;                    // (mc, nc), row stride nc
  A* ap = tile + tun::mc * tun::nc;     // mc / MR slivers of kc x MR
  A* bp = ap + tun::mc * tun::kc;       // nc / NR slivers of kc x NR
  const index_t rows = std::min(p.m - i0, tun::mc), w = std::min(p.n - j0, tun::nc);
  const index_t rows_p = (rows + MR - 1) / MR * MR, w_p = (w + NR - 1) / NR * NR;
  index_t off[3];
  p.batch.offsets(z, off);
  const T* a = p.a + off[0] + i0 * p.lda;
  const T* b = p.b + off[1] + j0;
  T* c = p.c + off[2] + i0 * p.ldc + j0;
  std::fill(tile, tile + rows_p * tun::nc, A(0));
  for (index_t k0 = 0; k0 < p.k; k0 += tun::kc) {
    const index_t kn = std::min(p.k - k0, tun::kc);
    // B's panel in groups of G slivers walked down the rows together: each row's
    // G NR elements are contiguous (G cache lines of float at AVX2's NR); one
    // sliver at a time read one cache line per row at ldb's stride.
    constexpr index_t G = 4;
    const index_t w_whole = w / NR * NR, w_groups = w / (G * NR) * (G * NR);
    for (index_t jg = 0; jg < w_groups; jg += G * NR) {
      for (index_t q = 0; q < kn; ++q) {
        const T* src = b + (k0 + q) * p.ldb + jg;
        A* dst = bp + jg * kn + q * NR;
UFUNC_HOST_UNROLL(8)
        for (index_t g = 0; g < G; ++g)
UFUNC_HOST_UNROLL(64)
          for (int j = 0; j < NR; ++j) dst[g * NR * kn + j] = static_cast<A>(src[g * NR + j]);
      }
    }
    for (index_t js = w_groups; js < w_p; js += NR) {
      A* dst = bp + js * kn;
      const T* src = b + k0 * p.ldb + js;
      if (js < w_whole) {  // a whole sliver: row segments copied (and converted) as they are
        for (index_t q = 0; q < kn; ++q)
          for (index_t j = 0; j < NR; ++j) dst[q * NR + j] = static_cast<A>(src[q * p.ldb + j]);
      } else {
        for (index_t q = 0; q < kn; ++q)
          for (index_t j = 0; j < NR; ++j) dst[q * NR + j] = js + j < w ? static_cast<A>(src[q * p.ldb + j]) : A(0);
      }
    }
    for (index_t is = 0; is < rows_p; is += MR) {
      A* dst = ap + is * kn;
      // A whole sliver of float or double: MR rows read side by side, the sliver
      // written in order. (Not for the 16-bit types: GCC vectorised their
      // conversion with gathers whose index vectors, hoisted, left the AVX-512
      // kernel one register short: B's second vector reloaded from the stack.)
      if (std::is_same_v<T, A> && is + MR <= rows) {
        const T* src = a + is * p.lda + k0;
        for (index_t q = 0; q < kn; ++q)
UFUNC_HOST_UNROLL(16)
          for (index_t i = 0; i < MR; ++i) dst[q * MR + i] = static_cast<A>(src[i * p.lda + q]);
        continue;
      }
      for (index_t i = 0; i < MR; ++i) {  // along A's rows (contiguous), across the sliver
        if (is + i < rows) {
          const T* src = a + (is + i) * p.lda + k0;
          for (index_t q = 0; q < kn; ++q) dst[q * MR + i] = static_cast<A>(src[q]);
        } else {
          for (index_t q = 0; q < kn; ++q) dst[q * MR + i] = A(0);
        }
      }
    }
    for (index_t is = 0; is < rows_p; is += MR)
      for (index_t js = 0; js < w_p; js += NR)
        micro_kernel<MR, NR>(ap + is * kn, bp + js * kn, kn, tile + is * tun::nc + js, tun::nc);
  }
  for (index_t i = 0; i < rows; ++i) {
    if constexpr (std::is_same_v<T, A>) {
      std::memcpy(c + i * p.ldc, tile + i * tun::nc, static_cast<std::size_t>(w) * sizeof(A));  // GCC ran the element loop scalar
    } else {
      for (index_t j = 0; j < w; ++j) c[i * p.ldc + j] = static_cast<T>(tile[i * tun::nc + j]);
    }
  }
}

/// C[b] = A[b] @ B[b] (gemm_args: unit column strides). Synchronous.
template <class T>
void run_matmul(const gemm_args<T>& p, stream_ref = {}) {
  if (p.m == 0 || p.n == 0 || p.batch.count == 0) return;
  using A = typename matmul_acc<T>::type;
  using tun = matmul_tuning;
  const index_t tm = (p.m + tun::mc - 1) / tun::mc, tn = (p.n + tun::nc - 1) / tun::nc;
  constexpr index_t per_slot = tun::mc * tun::nc + tun::mc * tun::kc + tun::kc * tun::nc;
  const index_t items = p.batch.count * tm * tn;
  host_temp<A> scratch(per_slot * (items == 1 ? 1 : parallel_slots()));  // before anything is written
  parallel_n_slots(items, [&](index_t t, int slot) {
    const index_t z = t / (tm * tn), rest = t % (tm * tn);
    const index_t i0 = rest / tn * tun::mc, j0 = rest % tn * tun::nc;
    A* const mine = &scratch[per_slot * slot];
    simd_run_fused([&](auto width) UFUNC_HOST_INLINE {
      using shp = micro_shape<A, decltype(width)::value>;
      matmul_tile<shp::mr, shp::nr>(p, z, i0, j0, mine);
    });
  });
}

}  // namespace ufunc::detail::host
