// The launchers of the matmul and transpose kernels (the host code with the
// kernel launches, and the host-side helpers only they use), kept out of
// kernels/ so that folder holds only device code: the `__global__` kernels,
// their `__device__` helpers and tuning structs. Included where the kernels are
// (under `__CUDACC__`): by linalg.hpp and the tensor_core launcher
// (matmul_tensor_core.hpp).
#pragma once

#include <cuda.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <type_traits>

#include "../../error.hpp"
#include "../../stream.hpp"
#include "../memory.hpp"
#include "../linalg_plan.hpp"
#include "launch.hpp"
#include "kernels/linalg_common.cuh"
#include "kernels/matmul_mma.cuh"
#include "kernels/matmul_naive.cuh"
#include "kernels/matmul_optimized.cuh"
#include "kernels/matmul_splitk_reduce.cuh"
#include "kernels/matmul_tiled.cuh"
#include "kernels/matmul_wgmma.cuh"
#include "kernels/transpose_naive.cuh"
#include "kernels/transpose_optimized.cuh"
#include "kernels/transpose_tiled.cuh"

namespace ufunc::detail {

/// Device scratch for the partial products, freed stream-ordered (also when a
/// launch throws).
template <class T>
class splitk_workspace {
 public:
  splitk_workspace(std::size_t n, stream_ref s)
      : p_(static_cast<T*>(memory<target::cuda>::allocate(n * sizeof(T), s))), s_(s) {}
  splitk_workspace(const splitk_workspace&) = delete;
  splitk_workspace& operator=(const splitk_workspace&) = delete;
  ~splitk_workspace() { memory<target::cuda>::deallocate(p_, s_); }
  T* data() const noexcept { return p_; }

 private:
  T* p_;
  stream_ref s_;
};

/// A launch grid of (x, y, z) blocks, each clamped to the hardware limits; the
/// kernels loop over what does not fit (grid-stride in each dimension).
inline dim3 linalg_grid(index_t x, index_t y, index_t z) {
  auto clamp = [](index_t v, index_t hi) { return static_cast<unsigned>(std::max<index_t>(1, std::min(v, hi))); };
  return dim3(clamp(x, 0x7fffffff), clamp(y, 65535), clamp(z, 65535));
}

/// Launches a copy kernel over the copy cut into ti x tj tiles (one z slice per
/// batch entry), `block` threads per tile.
template <class Kernel>
void launch_tiles(Kernel kernel, const char* name, const copy_args& p, index_t ti, index_t tj, dim3 block,
                  stream_ref s) {
  kernel<<<linalg_grid((p.ni + ti - 1) / ti, (p.nj + tj - 1) / tj, p.batch.count), block, 0, s.get()>>>(p);
  UFUNC_CHECK_LAUNCH(name, s.get());
}

template <class T>
void launch_matmul_naive(const gemm_args<T>& p, stream_ref s) {
  using tun = matmul_naive_tuning;
  const dim3 block(tun::block_x, tun::block_y);
  const dim3 grid = linalg_grid((p.n + tun::block_x - 1) / tun::block_x, (p.m + tun::block_y - 1) / tun::block_y,
                                p.batch.count);
  matmul_naive_kernel<T><<<grid, block, 0, s.get()>>>(p);
  UFUNC_CHECK_LAUNCH("matmul_naive_kernel", s.get());
}

template <class T>
void launch_matmul_tiled(const gemm_args<T>& p, stream_ref s) {
  constexpr int TS = matmul_tiled_tuning::tile;
  const dim3 grid = linalg_grid((p.n + TS - 1) / TS, (p.m + TS - 1) / TS, p.batch.count);
  matmul_tiled_kernel<T><<<grid, dim3(TS, TS), 0, s.get()>>>(p);
  UFUNC_CHECK_LAUNCH("matmul_tiled_kernel", s.get());
}

/// `slice` elements of C (batch x m x n) from `splits` workspace slices of
/// (batch x m) rows of `ldw` elements.
template <class T, class W>
void launch_matmul_splitk_reduce(const gemm_args<T>& p, const W* ws, int splits, index_t slice, stream_ref s,
                                 index_t ldw) {
  constexpr int B = matmul_splitk_tuning::block;
  const dim3 grid = linalg_grid((slice + B - 1) / B, 1, 1);
  matmul_splitk_reduce_kernel<T, W><<<grid, B, 0, s.get()>>>(p, ws, splits, slice, ldw);
  UFUNC_CHECK_LAUNCH("matmul_splitk_reduce_kernel", s.get());
}
template <class T>
void launch_matmul_splitk_reduce(const gemm_args<T>& p, const T* ws, int splits, index_t slice, stream_ref s) {
  launch_matmul_splitk_reduce<T, T>(p, ws, splits, slice, s, p.n);
}

/// Number of k-splits for a product: enough blocks to fill every SM's resident
/// slots when the tiles alone do not, while each split keeps at least
/// min_k_tiles_per_split k-tiles.
template <class Cfg, class T>
int matmul_optimized_splits_for(const gemm_args<T>& p, int sm_count) {
  using tun = matmul_optimized_tuning<T>;
  const index_t tiles = ((p.m + Cfg::bm - 1) / Cfg::bm) * ((p.n + Cfg::bn - 1) / Cfg::bn) * p.batch.count;
  const index_t slots = index_t(sm_count) * Cfg::min_blocks;
  if (tiles == 0 || tiles * 2 > slots) return 1;
  const index_t by_slots = slots / tiles;
  const index_t by_k = p.k / (index_t(Cfg::bk) * tun::min_k_tiles_per_split);
  return static_cast<int>(std::max<index_t>(1, std::min({by_slots, by_k, index_t(tun::max_splits)})));
}
template <class T>
int matmul_optimized_splits(const gemm_args<T>& p, int sm_count) {
  return matmul_optimized_splits_for<typename matmul_optimized_tuning<T>::config>(p, sm_count);
}

template <class Cfg, bool Vec, class T>
void launch_matmul_optimized_cfg(const gemm_args<T>& p, index_t k_chunk, int splits, index_t split_stride, bool vec_c,
                                 stream_ref s) {
  const index_t tiles = ((p.m + Cfg::bm - 1) / Cfg::bm) * ((p.n + Cfg::bn - 1) / Cfg::bn);
  const dim3 grid = linalg_grid(tiles, splits, p.batch.count);
  matmul_optimized_kernel<Cfg, Vec><<<grid, Cfg::threads, 0, s.get()>>>(p, k_chunk, split_stride, vec_c);
  UFUNC_CHECK_LAUNCH("matmul_optimized_kernel", s.get());
}

/// Runs the optimized kernel of configuration Cfg with `splits` k-splits (1:
/// straight into C; more: partial products into a workspace, then a
/// fixed-order sum into C).
template <class Cfg, class T>
void launch_matmul_optimized_with(const gemm_args<T>& p, int splits, stream_ref s) {
  constexpr int V = Cfg::vec;
  if (p.m == 0 || p.n == 0 || p.batch.count == 0) return;
  auto strides_ok = [&](int k, index_t ld) {
    if (ld % V != 0) return false;
    for (int d = 0; d < p.batch.ndim; ++d)
      if (p.batch.strides[k][d] % V != 0) return false;
    return true;
  };
  const bool vec_ab = is_aligned(p.a, 16) && is_aligned(p.b, 16) && strides_ok(0, p.lda) && strides_ok(1, p.ldb);
  // Each split's k-range is a whole number of k-tiles (recounted so none is
  // empty) and below 2^30, so the kernel counts k in 32 bits.
  constexpr index_t max_k_chunk = index_t(1) << 30;
  splits = static_cast<int>(std::max<index_t>(splits, (p.k + max_k_chunk - 1) / max_k_chunk));
  if (p.k == 0) splits = 1;  // nothing to split: the kernel writes zeros
  index_t k_chunk = p.k;
  if (splits > 1) {
    const index_t k_tiles = (p.k + Cfg::bk - 1) / Cfg::bk;
    k_chunk = (k_tiles + splits - 1) / splits * Cfg::bk;
    splits = static_cast<int>((p.k + k_chunk - 1) / k_chunk);
  }
  auto run = [&](const gemm_args<T>& g, int nsplit, index_t split_stride, bool vec_c) {
    if (vec_ab)
      launch_matmul_optimized_cfg<Cfg, true>(g, k_chunk, nsplit, split_stride, vec_c, s);
    else
      launch_matmul_optimized_cfg<Cfg, false>(g, k_chunk, nsplit, split_stride, vec_c, s);
  };
  if (splits <= 1) {
    run(p, 1, 0, is_aligned(p.c, 16) && strides_ok(2, p.ldc));
    return;
  }
  const index_t slice = p.batch.count * p.m * p.n;
  splitk_workspace<T> ws(static_cast<std::size_t>(slice) * static_cast<std::size_t>(splits), s);
  gemm_args<T> g = p;
  g.c = ws.data();
  g.ldc = p.n;
  index_t stride = p.m * p.n;
  for (int d = p.batch.ndim - 1; d >= 0; --d) {  // contiguous batch strides of the workspace
    g.batch.strides[2][d] = stride;
    stride *= p.batch.dims[d];
  }
  run(g, splits, slice, p.n % V == 0);
  launch_matmul_splitk_reduce(p, ws.data(), splits, slice, s);
}

template <class T>
void launch_matmul_optimized_splits(const gemm_args<T>& p, int splits, stream_ref s) {
  launch_matmul_optimized_with<typename matmul_optimized_tuning<T>::config>(p, splits, s);
}

template <class T>
void launch_matmul_optimized(const gemm_args<T>& p, stream_ref s) {
  launch_matmul_optimized_splits(p, matmul_optimized_splits(p, cuda_launch::sm_count()), s);
}

/// Elements per access the layout allows: the vector width when the source is
/// unit-strided along i, the destination along j, and every row start (batch
/// offsets, both row strides, both base addresses) is 16-byte aligned.
template <class S>
int transpose_optimized_width(const copy_args& p) {
  constexpr int V = transpose_optimized_tuning<S>::vec;
  if (V == 1 || p.s_i != 1 || p.d_j != 1) return 1;
  if (!is_aligned(p.src, 16) || !is_aligned(p.dst, 16) || p.s_j % V != 0 || p.d_i % V != 0) return 1;
  for (int d = 0; d < p.batch.ndim; ++d)
    if (p.batch.strides[0][d] % V != 0 || p.batch.strides[1][d] % V != 0) return 1;
  return V;
}

template <class S, int W, bool JFast = transpose_optimized_tuning<S>::j_fast,
          int Strip = transpose_optimized_tuning<S>::strip>
void launch_transpose_optimized_as(const copy_args& p, stream_ref s) {
  using tun = transpose_optimized_tuning<S>;
  const index_t tiles = ((p.ni + tun::tile - 1) / tun::tile) * ((p.nj + tun::tile - 1) / tun::tile);
  const index_t fast = JFast ? (p.nj + tun::tile - 1) / tun::tile : (p.ni + tun::tile - 1) / tun::tile;
  const index_t blocks = tiles / fast * ((fast + Strip - 1) / Strip);
  transpose_optimized_kernel<S, W, JFast, Strip><<<linalg_grid(blocks, 1, p.batch.count), tun::threads, 0, s.get()>>>(p);
  UFUNC_CHECK_LAUNCH("transpose_optimized_kernel", s.get());
}

template <class S>
void launch_transpose_optimized(const copy_args& p, stream_ref s) {
  using tun = transpose_optimized_tuning<S>;
  if constexpr (tun::vec > 1) {
    if (transpose_optimized_width<S>(p) == tun::vec) return launch_transpose_optimized_as<S, tun::vec>(p, s);
  }
  launch_transpose_optimized_as<S, 1>(p, s);
}

namespace mma {

/// Launches C = A @ B on `stream` with configuration Cfg (precondition: fits(p)).
template <class Cfg = default_config, class Tin, class Tout>
cudaError_t launch(const args<Tin, Tout>& p, cudaStream_t stream) {
  if (p.m == 0 || p.n == 0 || p.batch == 0) return cudaSuccess;
  auto kernel = gemm_kernel<Cfg, Tin, Tout>;
  cuda_launch::allow_dynamic_smem(kernel, Cfg::smem_bytes);  // once per kernel and device; throws
  const long long tiles = ((p.m + Cfg::bm - 1) / Cfg::bm) * ((p.n + Cfg::bn - 1) / Cfg::bn);
  const long long splits = p.k_chunk > 0 ? (p.k + p.k_chunk - 1) / p.k_chunk : 1;
  const dim3 grid(static_cast<unsigned>(tiles), static_cast<unsigned>(splits),
                  static_cast<unsigned>(p.batch < 65535 ? p.batch : 65535));
  kernel<<<grid, Cfg::threads, Cfg::smem_bytes, stream>>>(p);
  return cudaGetLastError();
}

}  // namespace mma

namespace wgmma {

/// True when the current device runs the wgmma kernel: compute capability 9.0
/// and this program built with sm_90a code for it (a build for sm_90 or
/// compute_90 has the kernel only as a trap). Asks the device once per device.
inline bool available() {
  int dev = 0;
  if (cudaGetDevice(&dev) != cudaSuccess || dev < 0 || dev >= runtime<target::cuda>::max_devices) return false;
  std::atomic<int>& known = runtime<target::cuda>::context(dev).wgmma;  // kept per device
  if (known.load(std::memory_order_acquire) == 0) {
    int major = 0, yes = 0;
    int* d = nullptr;
    bool ok = cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev) == cudaSuccess && major == 9 &&
              cudaMalloc(&d, sizeof(int)) == cudaSuccess;
    if (ok) {
      probe_kernel<><<<1, 1>>>(d);
      ok = cudaMemcpy(&yes, d, sizeof(int), cudaMemcpyDeviceToHost) == cudaSuccess;
    }
    if (d) (void)cudaFree(d);
    (void)cudaGetLastError();
    known.store(ok && yes ? 1 : 2, std::memory_order_release);
  }
  return known.load(std::memory_order_acquire) == 1;
}

/// A 2-D tensor map over a row-major (rows, cols) matrix with leading dim ld, boxes
/// of box_rows rows of 128 bytes in the 128-byte swizzle.
template <class Tin>
inline cudaError_t make_map(CUtensorMap* map, const Tin* base, long long rows, long long cols, long long ld,
                            unsigned box_rows) {
  using encode_fn = CUresult (*)(CUtensorMap*, CUtensorMapDataType, cuuint32_t, void*, const cuuint64_t*,
                                 const cuuint64_t*, const cuuint32_t*, const cuuint32_t*, CUtensorMapInterleave,
                                 CUtensorMapSwizzle, CUtensorMapL2promotion, CUtensorMapFloatOOBfill);
  static encode_fn encode = [] {
    void* f = nullptr;
    cudaDriverEntryPointQueryResult q{};
    if (cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &f, 12000, cudaEnableDefault, &q) != cudaSuccess ||
        q != cudaDriverEntryPointSuccess)
      f = nullptr;
    return reinterpret_cast<encode_fn>(f);
  }();
  if (!encode) return cudaErrorNotSupported;
  const cuuint64_t dims[2] = {static_cast<cuuint64_t>(cols), static_cast<cuuint64_t>(rows)};
  const cuuint64_t strides[1] = {static_cast<cuuint64_t>(ld) * sizeof(Tin)};
  const cuuint32_t box[2] = {static_cast<cuuint32_t>(128 / sizeof(Tin)), box_rows};
  const cuuint32_t estr[2] = {1, 1};
  const auto type = std::is_same_v<Tin, float>           ? CU_TENSOR_MAP_DATA_TYPE_FLOAT32
                    : std::is_same_v<Tin, __nv_bfloat16> ? CU_TENSOR_MAP_DATA_TYPE_BFLOAT16
                                                         : CU_TENSOR_MAP_DATA_TYPE_FLOAT16;
  const CUresult r = encode(map, type, 2, const_cast<Tin*>(base), dims, strides, box, estr,
                            CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B,
                            CU_TENSOR_MAP_L2_PROMOTION_L2_256B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  return r == CUDA_SUCCESS ? cudaSuccess : cudaErrorInvalidValue;
}

/// Launches C = A @ B on `stream` (precondition: fits(p); a device of compute
/// capability 9.0). For float (Tin = float, tf32 arithmetic) `b` holds B
/// transposed: (n, k) rows of k, `ldb` apart.
template <bool SwapB = false, class Tin, class Tout>
cudaError_t launch(const args<Tin, Tout>& p, cudaStream_t stream) {
  using C = config_of<Tin>;
  if (p.m == 0 || p.n == 0) return cudaSuccess;
  CUtensorMap ma, mb;
  cudaError_t e = make_map(&ma, p.a, p.m, p.k, p.lda, C::bm);
  if (e == cudaSuccess)
    e = std::is_same_v<Tin, float> ? make_map(&mb, p.b, p.n, p.k, p.ldb, C::bn) : make_map(&mb, p.b, p.k, p.n, p.ldb, C::bk);
  if (e != cudaSuccess) return e;
  auto kernel = gemm_kernel<Tin, Tout, SwapB>;
  cuda_launch::allow_dynamic_smem(kernel, C::smem_bytes);  // once per kernel and device; throws
  const long long tiles = ((p.m + C::bm - 1) / C::bm) * ((p.n + C::bn - 1) / C::bn);
  const long long splits = p.k_chunk > 0 ? (p.k + p.k_chunk - 1) / p.k_chunk : 1;
  kernel<<<dim3(static_cast<unsigned>(tiles), static_cast<unsigned>(splits)), C::threads, C::smem_bytes, stream>>>(ma, mb,
                                                                                                                  p);
  return cudaGetLastError();
}

}  // namespace wgmma

template <class S>
void launch_transpose_naive(const copy_args& p, stream_ref s) {
  using t = transpose_naive_tuning;
  launch_tiles(transpose_naive_kernel<S>, "transpose_naive_kernel", p, t::block_x, t::block_y, dim3(t::block_x, t::block_y), s);
}

template <class S>
void launch_transpose_tiled(const copy_args& p, stream_ref s) {
  using t = transpose_tiled_tuning;
  launch_tiles(transpose_tiled_kernel<S>, "transpose_tiled_kernel", p, t::tile, t::tile, dim3(t::tile, t::rows), s);
}

}  // namespace ufunc::detail
