// The host target's entries in the matmul/transpose registry (see ../linalg.hpp).
#pragma once

#include <array>

#include "../linalg_plan.hpp"
#include "matmul.hpp"
#include "transpose.hpp"

namespace ufunc::detail {

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
  /// The variants for element type T (the same for every type here).
  template <class T>
  static constexpr auto matmul_variants_for() {
    return matmul_variants;
  }
  template <class T>
  static constexpr matmul_variant matmul_fastest_for() {
    return matmul_fastest;
  }

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

}  // namespace ufunc::detail
