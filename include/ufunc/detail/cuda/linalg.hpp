// The CUDA target's entries in the matmul/transpose registry (see ../linalg.hpp):
// the launchers of the kernels in kernels/matmul_*.cuh and transpose_*.cuh.
#pragma once

#include <array>

#include "../linalg_plan.hpp"

#if defined(__CUDACC__)
#  include "kernels/matmul_naive.cuh"
#  include "kernels/matmul_optimized.cuh"
#  include "kernels/matmul_tiled.cuh"
#  include "kernels/transpose_naive.cuh"
#  include "kernels/transpose_optimized.cuh"
#  include "kernels/transpose_tiled.cuh"
#endif

namespace ufunc::detail {

template <class Target>
struct linalg_registry;

template <>
struct linalg_registry<target::cuda> {
  static constexpr const char* name = "cuda";
  static constexpr std::array<matmul_variant, 3> matmul_variants{matmul_variant::naive, matmul_variant::tiled,
                                                                 matmul_variant::optimized};
  static constexpr std::array<transpose_variant, 3> transpose_variants{
      transpose_variant::naive, transpose_variant::tiled, transpose_variant::optimized};
  static constexpr matmul_variant matmul_fastest = matmul_variant::optimized;
  static constexpr transpose_variant transpose_fastest = transpose_variant::optimized;
#if defined(__CUDACC__)
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
#else
  static constexpr bool can_launch = false;
#endif
};

}  // namespace ufunc::detail
