// The pieces of parallel_for.hpp's call: what the body must take, the largest
// index space, and the checked launch.
#pragma once

#include <array>
#include <climits>
#include <cstdint>
#include <string>
#include <type_traits>
#include <utility>

#include "../config.hpp"
#include "../error.hpp"
#include "../launch_config.hpp"
#include "launch_check.hpp"
#include "../shape.hpp"
#include "../stream.hpp"
#include "call.hpp"
#include "parallel_for.hpp"
#include "trace.hpp"

namespace ufunc::detail {

template <std::size_t>
struct pf_index_arg {
  using type = std::size_t;
};
template <class F, class Seq>
struct pf_invocable;
template <class F, std::size_t... I>
struct pf_invocable<F, std::index_sequence<I...>> : std::is_invocable<const F&, typename pf_index_arg<I>::type...> {};
/// True when F can be called with R std::size_t indices.
template <class F, int R>
inline constexpr bool pf_takes_v = pf_invocable<F, std::make_index_sequence<static_cast<std::size_t>(R)>>::value;

/// Largest index space: the grid-stride loop's last step (n - 1 + blocks * threads,
/// at most 2^31 * 2^10 = 2^41) must not overflow a signed 64-bit index.
inline constexpr index_t pf_max_count = INT64_MAX - (index_t(1) << 42);

inline const char* pf_index_names(int r) { return r == 1 ? "(i)" : r == 2 ? "(i, j)" : "(i, j, k)"; }

template <class Target, class F, class... Ctl>
void parallel_for_impl(const shape& space, F&& f, Ctl&&... ctl) {
  using Fn = std::decay_t<F>;
  constexpr bool t1 = pf_takes_v<Fn, 1>, t2 = pf_takes_v<Fn, 2>, t3 = pf_takes_v<Fn, 3>;
  static_assert(t1 || t2 || t3,
                "ufunc::parallel_for: the function must take 1, 2 or 3 std::size_t indices, one per dimension of "
                "the index space, e.g. [=] UFUNC_HD (std::size_t i, std::size_t j) { ... }");
  using args = call_args<c_stream | c_launch_config, bare_t<Ctl>...>;
  UFUNC_CHECK_TRAILING(args, "ufunc::parallel_for",
                       "a ufunc::launch_config and a stream (ufunc::stream, ufunc::stream_ref, cudaStream_t or "
                       "cuda::stream_ref)");
  const trace_range range("parallel_for");
  const int rank = space.size();
  if (rank < 1 || rank > 3)
    throw shape_error("parallel_for: the index space must have 1 to 3 dimensions, got " + space.str());
  if (!(rank == 1 ? t1 : rank == 2 ? t2 : t3)) {
    const int takes = t1 ? 1 : t2 ? 2 : 3;
    throw shape_error("parallel_for: the index space " + space.str() + " has " + std::to_string(rank) +
                      (rank == 1 ? " dimension" : " dimensions") + " but the function takes " +
                      std::string(pf_index_names(takes)) + (t1 + t2 + t3 > 1 ? " (and others)" : "") +
                      "; give one std::size_t parameter per dimension");
  }
  const index_t n = space.count();
  if (n > pf_max_count)
    throw shape_error("parallel_for: the index space " + space.str() + " has more than 2^63 - 2^42 indices");

  const controls c = read_controls(ctl...);
  const checked_launch cfg = c.has_launch ? check_launch_config(c.launch) : checked_launch{};
  const stream_ref s = c.stream;

  if (n == 0) return;  // an empty space: nothing to run (every check above still applies)
  std::array<index_t, 3> dims{1, 1, 1};
  for (int d = 0; d < rank; ++d) dims[static_cast<std::size_t>(d)] = space[d];
  const Fn& fn = f;
  if constexpr (t1)
    if (rank == 1) return run_parallel_for<Target, 1>(fn, dims, n, cfg, s);
  if constexpr (t2)
    if (rank == 2) return run_parallel_for<Target, 2>(fn, dims, n, cfg, s);
  if constexpr (t3)
    if (rank == 3) return run_parallel_for<Target, 3>(fn, dims, n, cfg, s);
}

}  // namespace ufunc::detail
