// ufunc::matmul: matrix products with numpy.matmul's semantics, on the CUDA
// kernels (naive, tiled, optimized) or the host backend's blocked loops.
#pragma once

#include <tuple>
#include <type_traits>
#include <vector>

#include "array.hpp"
#include "detail/call.hpp"     // arguments, controls, out checks
#include "detail/element.hpp"  // element_traits::has_matmul
#include "detail/linalg.hpp"   // registry, run_matmul, copy_view
#include "detail/signature.hpp"  // failed_call
#include "expression.hpp"
#include "linalg_variants.hpp"
#include "detail/trace.hpp"
#include "detail/matmul_call.hpp"  // its pieces (detail::)

namespace ufunc {

/// The matmul variants available on `Target` for element type `T`, slowest
/// first (CUDA: naive, tiled, optimized for float and double; naive and
/// tensor_core for __half and __nv_bfloat16; host: blocked). Tests and
/// benchmarks iterate this list.
template <class Target = target::device, class T = float>
std::vector<matmul_variant> matmul_variants() {
  return detail::as_vector(detail::linalg_registry<Target>::template matmul_variants_for<T>());
}

/// Matrix product with numpy.matmul's rules. `A` and `B` are arrays or views
/// (any strides; float, double, __half, __nv_bfloat16 or cuda::std::complex<float|double>;
/// same type and target). 2-D operands multiply as
/// (m,k) @ (k,n) -> (m,n); a 1-D operand is promoted to a row (first) or a
/// column (second) and the added dim is removed from the result; N-d operands
/// are stacks of matrices whose leading (batch) dims broadcast. Returns a new
/// contiguous array, or, with `ufunc::out(C)`, writes C (which must have exactly
/// the result's shape and must not overlap A or B: the product cannot be formed
/// in place) and returns its view. Optional trailing arguments, in any order:
/// `ufunc::out(C)`, a `ufunc::matmul_variant` (default `fastest`), a stream.
///
/// Layouts: the kernels read rows with unit stride and any row stride; an
/// operand that is not (a transposed view, a column slice with a step) is first
/// copied to a contiguous temporary by the transpose kernels (cost O(size of
/// the operand), small next to the O(m n k) product). Likewise an `out` view
/// without unit column stride receives the result through a temporary.
///
/// Errors (thrown before any work is enqueued): shape_error for 0-d operands,
/// mismatched inner dims (naming both shapes), batch dims that do not
/// broadcast, a wrong `out` shape or an overlapping `out`; value_error for a
/// variant the target lacks for the element type. A lazy expression operand is
/// refused at compile time (matmul does not fuse: `ufunc::evaluate` it first).
/// Asynchronous on the stream
/// like every ufunc call (the host target runs synchronously). Float results
/// are plain FP32 arithmetic (no TF32). 16-bit inputs accumulate in float and
/// round once to their own type (the result has the inputs' type): on CUDA on
/// the tensor cores (wgmma where the program was built with sm_90a code, e.g.
/// CMAKE_CUDA_ARCHITECTURES=90a, for a Hopper GPU; mma.sync otherwise), on the
/// host in float loops. On the CUDA target the call must be compiled by nvcc.
template <class A, class B, class... Rest>
auto matmul(const A& a, const B& b, Rest&&... rest) {
  if constexpr (detail::is_foreign_v<A> || detail::is_foreign_v<B>)
    return matmul(detail::adapt(a), detail::adapt(b), std::forward<Rest>(rest)...);  // Thrust vectors (interop.hpp)
  else if constexpr (!detail::matmul_operands_ok<A, B>())
    return detail::failed_call{};  // the check's message stopped the build
  else
    return detail::matmul_checked(a, b, std::forward<Rest>(rest)...);
}

}  // namespace ufunc
