// Pairwise reductions (host-only, shared by both backends): out[i] = op over j
// of map(inputs at (i, j)) where every array input moves along i alone (x_i) or
// along j alone (y_j, b_j). Which reductions have that layout is decided here,
// once; each backend then runs its own blocked engine (cuda/kernels/
// reduce_pairwise.cuh, host/reduce_pairwise.hpp) and applies its own size limits.
#pragma once

#include <cstddef>
#include <type_traits>
#include <utility>

#include <cuda/std/tuple>

#include "../config.hpp"

namespace ufunc::detail {

/// Sources a pairwise engine may read: a fused map over two or more array
/// inputs (at most 32, so that the roles fit in a mask). Buffers of partial
/// results and single dense inputs are not.
template <class Src, class = void>
struct pairwise_candidate : std::false_type {};
template <class Src>
struct pairwise_candidate<Src, std::enable_if_t<!Src::is_partial && !Src::dense>> {
  template <class Ins>
  struct arrays;
  template <class... Ops>
  struct arrays<cuda::std::tuple<Ops...>> : std::integral_constant<int, (int(Ops::is_array) + ... + 0)> {};
  using ins_type = std::decay_t<decltype(std::declval<Src>().ins)>;
  static constexpr bool value = arrays<ins_type>::value >= 2 && cuda::std::tuple_size<ins_type>::value <= 32;
};

/// Which operands of a tuple read memory (a trailing false keeps the array non-empty).
template <class... Ops>
const bool* pairwise_array_flags(cuda::std::tuple<Ops...>*) {
  static constexpr bool flags[] = {Ops::is_array..., false};
  return flags;
}

/// The pairwise layout of a reduction source (pairwise_candidate): one kept and
/// one reduced dim after merging, every array input with a zero stride along at
/// least one of them, some moving along each. Returns the mask of the array
/// inputs that move along the reduced dim j (bit k for input k), or 0 when the
/// layout is not pairwise. An array input with both strides 0 (a single value
/// broadcast everywhere) moves along neither and is not in the mask.
template <class Src>
unsigned pairwise_jmask(const Src& src) {
  if (src.kept.ndim != 1 || src.red.ndim != 1) return 0;
  using Ins = std::decay_t<decltype(src.ins)>;
  constexpr std::size_t nin = cuda::std::tuple_size<Ins>::value;
  const bool* is_array = pairwise_array_flags(static_cast<Ins*>(nullptr));
  unsigned jmask = 0;
  bool moves_i = false;
  for (std::size_t k = 0; k < nin; ++k) {
    if (!is_array[k]) continue;
    const auto ks = src.kept.strides[k][0], rs = src.red.strides[k][0];
    if (ks != 0 && rs != 0) return 0;
    if (rs != 0) jmask |= 1u << k;
    if (ks != 0) moves_i = true;
  }
  return moves_i ? jmask : 0u;
}

}  // namespace ufunc::detail
