// Registry and dispatch for matmul and transpose. Each target lists its
// implementations (variant, name, launcher) in one table; dispatch looks the
// requested variant up there (`fastest` resolves to the target's default), and
// tests, examples and benchmarks iterate the same table through
// ufunc::matmul_variants<Target>() / transpose_variants<Target>().
//
//   CUDA target: naive, tiled, optimized for float and double; naive and
//                tensor_core for __half and __nv_bfloat16 (cuda/linalg.hpp;
//                kernels in cuda/kernels/matmul_*.cuh, transpose_*.cuh)
//   host target: blocked (host/linalg.hpp: host/matmul.hpp, host/transpose.hpp)
#pragma once

#include <array>
#include <string>
#include <vector>

#include "../config.hpp"
#include "../error.hpp"
#include "../linalg_variants.hpp"
#include "../stream.hpp"
#include "cuda/launch.hpp"
#include "host/linalg.hpp"
#include "linalg_plan.hpp"
#include "memory.hpp"

#include UFUNC_CUDA_BACKEND("cuda/linalg.hpp")

namespace ufunc::detail {

/// Per target: the variants (in registry order, slowest first), the default,
/// the launch table, and the strided-row copy used when a copy swaps no dims.
template <class Target>
struct linalg_registry;

template <class Target>
void require_launchable() {
  if constexpr (!linalg_registry<Target>::can_launch) cuda_launch::require_nvcc<Target>();
}

/// A registry's fixed list as the vector the public *_variants() return.
template <class V, std::size_t N>
std::vector<V> as_vector(const std::array<V, N>& a) {
  return {a.begin(), a.end()};
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
  if (v == matmul_variant::fastest) v = reg::template matmul_fastest_for<T>();
  if constexpr (reg::can_launch) {
    for (const auto& impl : reg::template matmul_impls<T>())
      if (impl.variant == v) return impl.run(g, s);
  }
  throw value_error(std::string("matmul: variant '") + to_string(v) + "' is not available on target " + reg::name +
                    " for this element type (available: " + variant_list(reg::template matmul_variants_for<T>()) +
                    ")");
}

/// Checks that a variant exists on Target before any work is enqueued.
template <class Target, class V, std::size_t N>
void check_variant(const char* op, V v, const std::array<V, N>& available, const char* what = "") {
  if (v == V::fastest) return;
  for (auto a : available)
    if (a == v) return;
  throw value_error(std::string(op) + ": variant '" + to_string(v) + "' is not available on target " +
                    linalg_registry<Target>::name + what + " (available: " + variant_list(available) + ")");
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

}  // namespace ufunc::detail
