// matmul variant "tensor_core": the launcher of the 16-bit products (__half,
// __nv_bfloat16 inputs and result, float accumulation). It picks, per call:
//  - wgmma (matmul_wgmma.cuh) when the device runs it (a Hopper GPU and sm_90a
//    code in this program) and TMA can address the operands (16-byte aligned
//    bases, row and batch strides multiples of 8 elements);
//  - mma.sync (matmul_mma.cuh) when the operands also have n and k multiples
//    of 8 (whole 16-byte chunks): GPUs or builds without wgmma;
//  - the naive kernel with float accumulation otherwise (odd strides, unaligned
//    views; correct, slow).
// Few output tiles and a long k: split-k (grid.y splits of whole 64-deep
// k-tiles into a float workspace, summed in split order into C: deterministic).
// Batches: one launch per batch entry (TMA's tensor maps describe one matrix).
//
// Variant "tf32" (float, opt-in): the same wgmma kernel on float inputs rounded to
// tf32 (10-bit mantissa; float accumulation). tf32 wgmma reads both operands
// K-major, so B is first transposed into a temporary (n, k) per batch entry (the
// transpose kernels: 2 x 4 k n bytes of traffic, a few percent of the product at
// large sizes). Where wgmma cannot run (no sm_90a code, unaligned A or C) it
// computes in plain FP32 with the optimized kernel instead: never less accurate.
#pragma once

#include <algorithm>
#include <atomic>

#include "../linalg_plan.hpp"
#include "linalg_launch.hpp"

namespace ufunc::detail {

struct matmul_tensor_core_tuning {
  static constexpr int max_splits = 16;
  // Each split keeps at least 2048 of k: the workspace round trip and the
  // reduction launch (about 10 us at 1024^3, where the unsplit wgmma kernel takes
  // 22 us) pay off only for long k (H100, bench_tensor_core, 2026-11-25).
  static constexpr index_t min_k_per_split = 2048;
};

#if defined(UFUNC_TESTING)
namespace testing {
/// Test-only: 0 picks the kernel as above; 1 forces mma.sync where it fits; 2
/// forces the naive kernel (so tests reach every path on a Hopper GPU).
inline std::atomic<int>& tensor_core_path() {
  static std::atomic<int> v{0};
  return v;
}
}  // namespace testing
#endif

enum class tc_path { wgmma, mma, naive };

template <class T>
tc_path pick_tensor_core_path(const gemm_args<T>& p) {
  auto strides_ok = [&](int op, index_t ld, index_t q) {
    if (ld % q != 0) return false;
    for (int d = 0; d < p.batch.ndim; ++d)
      if (p.batch.strides[op][d] % q != 0) return false;
    return true;
  };
  const bool ab = is_aligned(p.a, 16) && is_aligned(p.b, 16) && strides_ok(0, p.lda, 8) && strides_ok(1, p.ldb, 8);
  const bool c = is_aligned(p.c, 2 * sizeof(T)) && strides_ok(2, p.ldc, 2);
  const bool big = p.m < (index_t(1) << 31) && p.n < (index_t(1) << 31) && p.k < (index_t(1) << 31);
  int force = 0;
#if defined(UFUNC_TESTING)
  force = testing::tensor_core_path().load();
#endif
  if (force == 2 || !ab || !c || !big) return tc_path::naive;
  if (force == 0 && wgmma::available()) return tc_path::wgmma;
  return p.n % 8 == 0 && p.k % 8 == 0 ? tc_path::mma : tc_path::naive;
}

/// One matrix (batch entry z) on the chosen kernel into `c` (row stride ldc).
template <class T, class Tout>
void launch_tc_entry(tc_path path, const gemm_args<T>& p, index_t z, Tout* c, index_t ldc, index_t k_chunk,
                     index_t split_stride, stream_ref s) {
  index_t off[3];
  p.batch.offsets(z, off);
  if (path == tc_path::wgmma) {
    wgmma::args<T, Tout> g;
    g.a = p.a + off[0], g.b = p.b + off[1], g.c = c, g.m = p.m, g.n = p.n, g.k = p.k;
    g.lda = p.lda, g.ldb = p.ldb, g.ldc = ldc, g.k_chunk = k_chunk, g.split_stride = split_stride;
    UFUNC_CUDA_CHECK(wgmma::launch(g, s.get()));
  } else {
    mma::args<T, Tout> g;
    g.a = p.a + off[0], g.b = p.b + off[1], g.c = c, g.m = p.m, g.n = p.n, g.k = p.k;
    g.lda = p.lda, g.ldb = p.ldb, g.ldc = ldc, g.k_chunk = k_chunk, g.split_stride = split_stride;
    UFUNC_CUDA_CHECK(mma::launch(g, s.get()));
  }
}

/// The split count for `tiles` output tiles (all batch entries) and depth k.
inline index_t tensor_core_splits(index_t tiles, index_t k) {
  using tun = matmul_tensor_core_tuning;
  const index_t sms = cuda_launch::sm_count();
  if (tiles * 2 > sms) return 1;
  return std::max<index_t>(1, std::min({sms / tiles, k / tun::min_k_per_split, index_t(tun::max_splits)}));
}

/// tf32 products: B^T per batch entry into a temporary of rows `ldt` (a multiple
/// of 4: 16-byte rows for TMA), then wgmma (with split-k as above). A template
/// (T is float) so that only a translation unit calling a float matmul compiles
/// its kernels: as an inline function, every unit including ufunc.hpp compiled the
/// wgmma, SIMT-matmul and transpose kernels it reaches (an empty unit's nvcc time,
/// bench/NOTES.md).
template <class T>
void launch_matmul_tf32(const gemm_args<T>& p, stream_ref s) {
  static_assert(std::is_same_v<T, float>, "launch_matmul_tf32: float products");
  if (p.m == 0 || p.n == 0 || p.batch.count == 0) return;
  auto strides_ok = [&](int op, index_t ld, index_t q) {
    if (ld % q != 0) return false;
    for (int d = 0; d < p.batch.ndim; ++d)
      if (p.batch.strides[op][d] % q != 0) return false;
    return true;
  };
  const bool ok = p.k > 0 && wgmma::available() && is_aligned(p.a, 16) && strides_ok(0, p.lda, 4) &&
                  is_aligned(p.c, 8) && strides_ok(2, p.ldc, 2) && p.m < (index_t(1) << 31) &&
                  p.n < (index_t(1) << 31) && p.k < (index_t(1) << 31);
  if (!ok) return launch_matmul_optimized(p, s);
  const index_t ldt = (p.k + 3) / 4 * 4;
  splitk_workspace<float> bt(static_cast<std::size_t>(p.batch.count * p.n * ldt), s);
  using S = storage_t<float>;
  for (index_t z = 0; z < p.batch.count; ++z) {
    index_t off[3];
    p.batch.offsets(z, off);
    operand_layout src = contiguous_layout(p.b + off[1], sizeof(float), shape{p.k, p.n});
    src.strides[0] = p.ldb;  // B's rows (zero for a broadcast row)
    operand_layout dst = contiguous_layout(bt.data() + z * p.n * ldt, sizeof(float), shape{p.k, p.n});
    dst.strides[0] = 1;  // (k, n) element at n ldt + k: B^T
    dst.strides[1] = ldt;
    const copy_plan cp = plan_copy(dst, src);
    if (cp.kind == copy_kind::tiles) launch_transpose_optimized<S>(cp.args, s);
    else if (cp.kind == copy_kind::rows) launch_transpose_naive<S>(cp.args, s);
    else if (cp.kind == copy_kind::contiguous) memory<target::cuda>::copy(cp.args.dst, cp.args.src, cp.bytes, s);
  }
  const index_t tiles = ((p.m + wgmma::config::bm - 1) / wgmma::config::bm) *
                        ((p.n + wgmma::config::bn - 1) / wgmma::config::bn) * p.batch.count;
  index_t splits = tensor_core_splits(tiles, p.k), k_chunk = 0;
  if (splits > 1) {
    k_chunk = ((p.k + 63) / 64 + splits - 1) / splits * 64;
    splits = (p.k + k_chunk - 1) / k_chunk;
  }
  auto entry = [&](index_t z, float* c, index_t ldc, index_t stride) {
    index_t off[3];
    p.batch.offsets(z, off);
    wgmma::args<float, float> g;
    g.a = p.a + off[0], g.b = bt.data() + z * p.n * ldt, g.c = c, g.m = p.m, g.n = p.n, g.k = p.k;
    g.lda = p.lda, g.ldb = ldt, g.ldc = ldc, g.k_chunk = splits > 1 ? k_chunk : 0, g.split_stride = stride;
    UFUNC_CUDA_CHECK(wgmma::launch(g, s.get()));
  };
  if (splits <= 1) {
    for (index_t z = 0; z < p.batch.count; ++z) {
      index_t off[3];
      p.batch.offsets(z, off);
      entry(z, p.c + off[2], p.ldc, 0);
    }
    return;
  }
  const index_t ldw = p.n + (p.n & 1);
  const index_t slice = p.batch.count * p.m * p.n, wslice = p.batch.count * p.m * ldw;
  splitk_workspace<float> ws(static_cast<std::size_t>(wslice) * static_cast<std::size_t>(splits), s);
  for (index_t z = 0; z < p.batch.count; ++z) entry(z, ws.data() + z * p.m * ldw, ldw, wslice);
  launch_matmul_splitk_reduce<float, float>(p, ws.data(), static_cast<int>(splits), slice, s, ldw);
}

template <class T>
void launch_matmul_tensor_core(const gemm_args<T>& p, stream_ref s) {
  static_assert(is_matmul16<T>, "the tensor_core variant takes __half and __nv_bfloat16");
  if (p.m == 0 || p.n == 0 || p.batch.count == 0) return;
  const tc_path path = p.k == 0 ? tc_path::naive : pick_tensor_core_path(p);  // k == 0: zeros
  if (path == tc_path::naive) return launch_matmul_naive(p, s);
  const index_t bm = path == tc_path::wgmma ? wgmma::config::bm : mma::default_config::bm;
  const index_t bn = path == tc_path::wgmma ? wgmma::config::bn : mma::default_config::bn;
  const index_t tiles = ((p.m + bm - 1) / bm) * ((p.n + bn - 1) / bn) * p.batch.count;
  index_t splits = tensor_core_splits(tiles, p.k);
  if (splits <= 1) {
    for (index_t z = 0; z < p.batch.count; ++z) {
      index_t off[3];
      p.batch.offsets(z, off);
      launch_tc_entry<T, T>(path, p, z, p.c + off[2], p.ldc, 0, 0, s);
    }
    return;
  }
  // Split-k: whole 64-deep k-tiles per split (recounted so that none is empty).
  const index_t k_tiles = (p.k + 63) / 64;
  const index_t k_chunk = (k_tiles + splits - 1) / splits * 64;
  splits = (p.k + k_chunk - 1) / k_chunk;
  const index_t ldw = p.n + (p.n & 1);  // even rows: the kernels store float pairs
  const index_t slice = p.batch.count * p.m * p.n, wslice = p.batch.count * p.m * ldw;
  splitk_workspace<float> ws(static_cast<std::size_t>(wslice) * static_cast<std::size_t>(splits), s);
  for (index_t z = 0; z < p.batch.count; ++z)
    launch_tc_entry<T, float>(path, p, z, ws.data() + z * p.m * ldw, ldw, k_chunk, wslice, s);
  launch_matmul_splitk_reduce<T, float>(p, ws.data(), static_cast<int>(splits), slice, s, ldw);
}

}  // namespace ufunc::detail
