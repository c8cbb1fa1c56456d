// Registry and dispatch for matmul and transpose. Each target lists its
// implementations (variant, name, launcher) in one table; dispatch looks the
// requested variant up there (`fastest` resolves to the target's default), and
// tests, examples and benchmarks iterate the same table through
// ufunc::matmul_variants<Target>() / transpose_variants<Target>().
//
//   CUDA target: naive, tiled, optimized (kernels/matmul_*.cuh, transpose_*.cuh)
//   host target: blocked (host/matmul.hpp, host/transpose.hpp)
#pragma once

#include <array>
#include <string>
#include <vector>

#include "../array.hpp"
#include "../config.hpp"
#include "../error.hpp"
#include "../stream.hpp"
#include "cuda/launch.hpp"
#include "host/matmul.hpp"
#include "host/transpose.hpp"
#include "linalg_plan.hpp"
#include "memory.hpp"

#if defined(UFUNC_BACKEND_CUDA) && defined(__CUDACC__)
#  include "kernels/matmul_naive.cuh"
#  include "kernels/matmul_optimized.cuh"
#  include "kernels/matmul_tiled.cuh"
#  include "kernels/transpose_naive.cuh"
#  include "kernels/transpose_optimized.cuh"
#  include "kernels/transpose_tiled.cuh"
#endif

namespace ufunc {

/// The implementations of ufunc::matmul a caller can pick (last argument group
/// of a call, e.g. `ufunc::matmul(a, b, ufunc::matmul_variant::tiled)`).
/// `fastest` (the default) is the target's best: `optimized` on CUDA, `blocked`
/// on the host. The others name one implementation and are for teaching and
/// benchmarks; asking for one the target does not have throws value_error.
enum class matmul_variant {
  fastest,    ///< the target's default
  naive,      ///< CUDA: one thread per output element (the seed's kernel)
  tiled,      ///< CUDA: 16x16 shared-memory tiles (the seed's kernel, made correct)
  optimized,  ///< CUDA: register-blocked SIMT GEMM, double-buffered, split-k for few tiles
  blocked,    ///< host: cache-blocked, multi-threaded loops
};

/// The implementations of ufunc::transpose a caller can pick; as for
/// matmul_variant, `fastest` (the default) is `optimized` on CUDA and `blocked`
/// on the host.
enum class transpose_variant {
  fastest,    ///< the target's default
  naive,      ///< CUDA: one thread per element (the seed's kernel)
  tiled,      ///< CUDA: padded 32x33 shared-memory tile (the seed's kernel)
  optimized,  ///< CUDA: 64x64 tiles, 16-byte accesses, a whole tile of loads in flight
  blocked,    ///< host: 32x32 blocks on all cores
};

inline const char* to_string(matmul_variant v) {
  switch (v) {
    case matmul_variant::fastest: return "fastest";
    case matmul_variant::naive: return "naive";
    case matmul_variant::tiled: return "tiled";
    case matmul_variant::optimized: return "optimized";
    case matmul_variant::blocked: return "blocked";
  }
  return "?";
}
inline const char* to_string(transpose_variant v) {
  switch (v) {
    case transpose_variant::fastest: return "fastest";
    case transpose_variant::naive: return "naive";
    case transpose_variant::tiled: return "tiled";
    case transpose_variant::optimized: return "optimized";
    case transpose_variant::blocked: return "blocked";
  }
  return "?";
}

namespace detail {

template <class T>
using gemm_fn = void (*)(const gemm_args<T>&, stream_ref);
using copy_fn = void (*)(const copy_args&, stream_ref);

template <class T>
struct matmul_impl {
  matmul_variant variant;
  gemm_fn<T> run;
};
struct transpose_impl {
  transpose_variant variant;
  copy_fn run;
};

/// Per target: the variants (in registry order, slowest first), the default,
/// the launch table, and the strided-row copy used when a copy swaps no dims.
template <class Target>
struct linalg_registry;

template <>
struct linalg_registry<target::host> {
  static constexpr const char* name = "host";
  static constexpr std::array<matmul_variant, 1> matmul_variants{matmul_variant::blocked};
  static constexpr std::array<transpose_variant, 1> transpose_variants{transpose_variant::blocked};
  static constexpr matmul_variant matmul_fastest = matmul_variant::blocked;
  static constexpr transpose_variant transpose_fastest = transpose_variant::blocked;
  static constexpr bool can_launch = true;

  template <class T>
  static std::array<matmul_impl<T>, 1> matmul_impls() {
    return {{{matmul_variant::blocked, &host::run_matmul<T>}}};
  }
  template <class S>
  static std::array<transpose_impl, 1> transpose_impls() {
    return {{{transpose_variant::blocked, &host::run_copy<S>}}};
  }
  template <class S>
  static copy_fn row_copy() {
    return &host::run_copy<S>;
  }
};

#if defined(UFUNC_BACKEND_CUDA)
template <>
struct linalg_registry<target::cuda> {
  static constexpr const char* name = "cuda";
  static constexpr std::array<matmul_variant, 3> matmul_variants{matmul_variant::naive, matmul_variant::tiled,
                                                                 matmul_variant::optimized};
  static constexpr std::array<transpose_variant, 3> transpose_variants{
      transpose_variant::naive, transpose_variant::tiled, transpose_variant::optimized};
  static constexpr matmul_variant matmul_fastest = matmul_variant::optimized;
  static constexpr transpose_variant transpose_fastest = transpose_variant::optimized;
#  if defined(__CUDACC__)
  static constexpr bool can_launch = true;
  template <class T>
  static std::array<matmul_impl<T>, 3> matmul_impls() {
    return {{{matmul_variant::naive, &launch_matmul_naive<T>},
             {matmul_variant::tiled, &launch_matmul_tiled<T>},
             {matmul_variant::optimized, &launch_matmul_optimized<T>}}};
  }
  template <class S>
  static std::array<transpose_impl, 3> transpose_impls() {
    return {{{transpose_variant::naive, &launch_transpose_naive<S>},
             {transpose_variant::tiled, &launch_transpose_tiled<S>},
             {transpose_variant::optimized, &launch_transpose_optimized<S>}}};
  }
  template <class S>
  static copy_fn row_copy() {
    return &launch_transpose_naive<S>;  // per-element, coalesced on both sides when no dims swap
  }
#  else
  static constexpr bool can_launch = false;
#  endif
};
#endif

template <class Target>
void require_launchable() {
  if constexpr (!linalg_registry<Target>::can_launch) cuda_launch::require_nvcc<Target>();
}

template <class Variants>
std::string variant_list(const Variants& vs) {
  std::string s;
  for (auto v : vs) s += std::string(s.empty() ? "" : ", ") + to_string(v);
  return s;
}

/// Runs C = A @ B with the requested variant on Target (validation is the caller's).
template <class Target, class T>
void run_matmul(matmul_variant v, const gemm_args<T>& g, stream_ref s) {
  require_launchable<Target>();
  using reg = linalg_registry<Target>;
  if (v == matmul_variant::fastest) v = reg::matmul_fastest;
  if constexpr (reg::can_launch) {
    for (const auto& impl : reg::template matmul_impls<T>())
      if (impl.variant == v) return impl.run(g, s);
  }
  throw value_error(std::string("matmul: variant '") + to_string(v) + "' is not available on target " + reg::name +
                    " (available: " + variant_list(reg::matmul_variants) + ")");
}

/// Checks that a variant exists on Target before any work is enqueued.
template <class Target, class V, std::size_t N>
void check_variant(const char* op, V v, const std::array<V, N>& available) {
  if (v == V::fastest) return;
  for (auto a : available)
    if (a == v) return;
  throw value_error(std::string(op) + ": variant '" + to_string(v) + "' is not available on target " +
                    linalg_registry<Target>::name + " (available: " + variant_list(available) + ")");
}

/// Runs a planned copy of elements stored as S on Target: contiguous blocks as
/// one memory copy, copies that swap no dims with the strided-row kernel, and
/// transposes with the requested variant.
template <class Target, class S>
void run_copy(transpose_variant v, const copy_plan& plan, stream_ref s) {
  require_launchable<Target>();
  using reg = linalg_registry<Target>;
  switch (plan.kind) {
    case copy_kind::none: return;
    case copy_kind::contiguous: memory<Target>::copy(plan.args.dst, plan.args.src, plan.bytes, s); return;
    case copy_kind::rows:
      if constexpr (reg::can_launch) reg::template row_copy<S>()(plan.args, s);
      return;
    case copy_kind::tiles: break;
  }
  if (v == transpose_variant::fastest) v = reg::transpose_fastest;
  if constexpr (reg::can_launch) {
    for (const auto& impl : reg::template transpose_impls<S>())
      if (impl.variant == v) return impl.run(plan.args, s);
  }
  throw value_error(std::string("transpose: variant '") + to_string(v) + "' is not available on target " +
                    reg::name + " (available: " + variant_list(reg::transpose_variants) + ")");
}

/// dst = src for two views of one shape and element type T on Target.
template <class Target, class T>
void copy_view(const operand_layout& dst, const operand_layout& src, stream_ref s,
               transpose_variant v = transpose_variant::fastest) {
  run_copy<Target, storage_t<T>>(v, plan_copy(dst, src), s);
}

/// A contiguous copy of the view described by `src` (shape and strides).
template <class Target, class T>
array<T, Target> materialize(const operand_layout& src, stream_ref s) {
  array<T, Target> a(src.shp, s);
  copy_view<Target, T>(contiguous_layout(a.data(), sizeof(T), src.shp), src, s);
  return a;
}

}  // namespace detail
}  // namespace ufunc
