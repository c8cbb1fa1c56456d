// Host backend of matmul: a cache-blocked product on all cores. The result is
// split into (mc, nc) tiles, one OpenMP work item each (parallel.hpp); within
// a tile, k advances in kc-deep panels so the panel of B (kc x nc) stays in L2,
// and four rows of C are updated per pass over a B row so each B element
// loaded feeds four multiply-adds. The innermost loop runs along contiguous
// rows of B and C, which the compiler vectorises.
#pragma once

#include <algorithm>

#include "../../stream.hpp"
#include "../linalg_plan.hpp"
#include "parallel.hpp"
#include "temp.hpp"

namespace ufunc::detail::host {

struct matmul_tuning {
  static constexpr index_t mc = 64;   // rows of C per task
  static constexpr index_t nc = 256;  // columns of C per task (a row segment: 1-2 KiB)
  static constexpr index_t kc = 256;  // k panel: kc x nc of B is 256-512 KiB (L2)
};


/// c[r][0..w) += sum over p in [0, kn) of a[r][p] * b[p][0..w) for R rows.
template <int R, class T>
inline void matmul_rows(const T* a, index_t lda, const T* b, index_t ldb, T* c, index_t ldc, index_t kn, index_t w) {
  const T* ar[R];
  T* cr[R];
  for (int r = 0; r < R; ++r) {
    ar[r] = a + r * lda;
    cr[r] = c + r * ldc;
  }
  for (index_t p = 0; p < kn; ++p) {
    const T* __restrict__ brow = b + p * ldb;
    T av[R];
    for (int r = 0; r < R; ++r) av[r] = ar[r][p];
    if constexpr (R == 4) {
      T* __restrict__ c0 = cr[0];
      T* __restrict__ c1 = cr[1];
      T* __restrict__ c2 = cr[2];
      T* __restrict__ c3 = cr[3];
      for (index_t j = 0; j < w; ++j) {
        const T bj = brow[j];
        c0[j] += av[0] * bj;
        c1[j] += av[1] * bj;
        c2[j] += av[2] * bj;
        c3[j] += av[3] * bj;
      }
    } else {
      for (int r = 0; r < R; ++r) {
        T* __restrict__ c0 = cr[r];
        for (index_t j = 0; j < w; ++j) c0[j] += av[r] * brow[j];
      }
    }
  }
}

/// The 16-bit floats: the same blocking on float copies of each panel (A's
/// (mc, kc), B's (kc, nc)) into a float tile of C, rounded to T once at the end
/// (float accumulation, as the CUDA target's tensor cores). Scratch per thread
/// slot, allocated before the loop.
template <class T>
void run_matmul16(const gemm_args<T>& p) {
  using tun = matmul_tuning;
  const index_t tm = (p.m + tun::mc - 1) / tun::mc, tn = (p.n + tun::nc - 1) / tun::nc;
  constexpr index_t per_slot = tun::mc * tun::nc + tun::mc * tun::kc + tun::kc * tun::nc;
  const int slots = parallel_slots();
  host_temp<float> scratch(per_slot * slots);
  parallel_n_slots(p.batch.count * tm * tn, [&](index_t t, int slot) {
    float* acc = &scratch[per_slot * slot];  // (mc, nc), row stride w
    float* ap = acc + tun::mc * tun::nc;     // (mc, kc), row stride kc
    float* bp = ap + tun::mc * tun::kc;      // (kc, nc), row stride w
    const index_t z = t / (tm * tn), rest = t % (tm * tn);
    const index_t i0 = rest / tn * tun::mc, j0 = rest % tn * tun::nc;
    const index_t rows = std::min(p.m, i0 + tun::mc) - i0, w = std::min(p.n, j0 + tun::nc) - j0;
    index_t off[3];
    p.batch.offsets(z, off);
    const T* a = p.a + off[0] + i0 * p.lda;
    const T* b = p.b + off[1] + j0;
    T* c = p.c + off[2] + i0 * p.ldc + j0;
    std::fill(acc, acc + rows * w, 0.f);
    for (index_t k0 = 0; k0 < p.k; k0 += tun::kc) {
      const index_t kn = std::min(p.k - k0, tun::kc);
      for (index_t i = 0; i < rows; ++i)
        for (index_t q = 0; q < kn; ++q) ap[i * tun::kc + q] = static_cast<float>(a[i * p.lda + k0 + q]);
      for (index_t q = 0; q < kn; ++q)
        for (index_t j = 0; j < w; ++j) bp[q * w + j] = static_cast<float>(b[(k0 + q) * p.ldb + j]);
      index_t i = 0;
      for (; i + 4 <= rows; i += 4) matmul_rows<4>(ap + i * tun::kc, tun::kc, bp, w, acc + i * w, w, kn, w);
      for (; i < rows; ++i) matmul_rows<1>(ap + i * tun::kc, tun::kc, bp, w, acc + i * w, w, kn, w);
    }
    for (index_t i = 0; i < rows; ++i)
      for (index_t j = 0; j < w; ++j) c[i * p.ldc + j] = T(acc[i * w + j]);
  });
}

/// float and double: blocked loops straight into C.
template <class T>
void run_matmul_plain(const gemm_args<T>& p) {
  using tun = matmul_tuning;
  const index_t tm = (p.m + tun::mc - 1) / tun::mc, tn = (p.n + tun::nc - 1) / tun::nc;
  parallel_n(p.batch.count * tm * tn, [&p, tm, tn](index_t t) {
    const index_t z = t / (tm * tn), rest = t % (tm * tn);
    const index_t i0 = rest / tn * tun::mc, j0 = rest % tn * tun::nc;
    const index_t i1 = std::min(p.m, i0 + tun::mc), w = std::min(p.n, j0 + tun::nc) - j0;
    index_t off[3];
    p.batch.offsets(z, off);
    const T* a = p.a + off[0];
    const T* b = p.b + off[1] + j0;
    T* c = p.c + off[2] + j0;
    for (index_t i = i0; i < i1; ++i) std::fill(c + i * p.ldc, c + i * p.ldc + w, T(0));
    for (index_t k0 = 0; k0 < p.k; k0 += tun::kc) {
      const index_t kn = std::min(p.k - k0, tun::kc);
      index_t i = i0;
      for (; i + 4 <= i1; i += 4) matmul_rows<4>(a + i * p.lda + k0, p.lda, b + k0 * p.ldb, p.ldb, c + i * p.ldc, p.ldc, kn, w);
      for (; i < i1; ++i) matmul_rows<1>(a + i * p.lda + k0, p.lda, b + k0 * p.ldb, p.ldb, c + i * p.ldc, p.ldc, kn, w);
    }
  });
}

/// C[b] = A[b] @ B[b] (gemm_args: unit column strides). Synchronous.
template <class T>
void run_matmul(const gemm_args<T>& p, stream_ref = {}) {
  if (p.m == 0 || p.n == 0 || p.batch.count == 0) return;
  if constexpr (is_matmul16<T>)
    run_matmul16(p);
  else
    run_matmul_plain(p);
}

}  // namespace ufunc::detail::host
