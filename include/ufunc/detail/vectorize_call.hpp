// The pieces of vectorize.hpp's calls: result allocation (in memory, host
// vectors, late views of a streamed call's outputs), where operands live, and
// the copy of a throwing function's temporaries into out.
#pragma once

#include <atomic>
#include <future>
#include <memory>
#include <new>
#include <optional>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "../array.hpp"
#include "../array_view.hpp"
#include "../axis.hpp"
#include "../config.hpp"
#include "../error.hpp"
#include "../expression.hpp"
#include "../out.hpp"
#include "../shape.hpp"
#include "../stream.hpp"
#include "call.hpp"
#include "core_dims.hpp"
#include "elementwise.hpp"
#include "host/helper_thread.hpp"
#include "signature.hpp"
#include "staged_out.hpp"
#include "stream.hpp"
#include "trace.hpp"

namespace ufunc::detail {

template <class R, class Target, std::size_t... J>
auto allocate_results(const shape& s, stream_ref st, std::index_sequence<J...>) {
  return std::make_tuple(array<typename result_traits<R>::template type<static_cast<int>(J)>, Target>(s, st)...);
}
template <class R, std::size_t... J>
constexpr bool has_bool_output(std::index_sequence<J...>) {
  return (std::is_same_v<typename result_traits<R>::template type<static_cast<int>(J)>, bool> || ...);
}
template <class R, std::size_t... J>
auto allocate_host_vectors(std::size_t n, std::index_sequence<J...>) {
  return std::make_tuple(new_host_vector<typename result_traits<R>::template type<static_cast<int>(J)>>(n)...);
}
/// A streamed call's result std::vectors of at least this many bytes (all
/// outputs together) are constructed while its first chunks run: below it,
/// handing them to another thread costs about what the zero fill it hides does.
inline constexpr std::size_t late_alloc_min_bytes = std::size_t(256) << 10;
/// Where those result std::vectors are constructed (detail::late_build): with
/// true (the default), while the pipeline copies in and computes: in a small
/// call on the calling thread while the other OpenMP threads stage and enqueue
/// the chunks, in a larger one on the process's helper thread (the calling
/// thread when the helper is busy); with false, on the calling thread when the
/// pipeline first needs them, its chunks in flight. Process-wide; a tuning knob
/// (bench_stream measures both; bench/NOTES.md, 2026-11-26).
inline std::atomic<bool>& late_alloc_on_thread() {
  static std::atomic<bool> v{true};
  return v;
}
template <class R, std::size_t... J>
constexpr std::size_t result_elem_bytes(std::index_sequence<J...>) {
  return (sizeof(typename result_traits<R>::template type<static_cast<int>(J)>) + ...);
}
/// An address for views of outputs whose memory comes later: a view may not
/// hold null data (array_view refuses it), so these point here; nothing reads or
/// writes through them (their layouts are handed to the pipeline with null data,
/// which marks them late, and it writes through the callback's addresses).
template <class T>
T* late_placeholder() {
  alignas(16) static unsigned char at[16];
  return reinterpret_cast<T*>(at);
}
/// Views of R's outputs over no memory yet (a late output's base comes from the pipeline's callback).
template <class R, class Target, std::size_t... J>
auto late_result_views(const shape& s, std::index_sequence<J...>) {
  return std::make_tuple(
      make_view<Target>(late_placeholder<typename result_traits<R>::template type<static_cast<int>(J)>>(), s)...);
}
/// True for an argument in host memory: a host container or a host-target array.
template <class A>
inline constexpr bool host_resident_v =
    arg_traits<A>::is_vector ||
    (arg_traits<A>::is_array && std::is_same_v<typename arg_traits<A>::target_type, target::host>);
template <class Outs, std::size_t... J>
constexpr bool outs_on_host(std::index_sequence<J...>) {
  return (host_resident_v<std::tuple_element_t<J, Outs>> || ...);
}
template <class Outs>
constexpr bool outs_on_host() {
  return outs_on_host<Outs>(std::make_index_sequence<std::tuple_size_v<Outs>>{});
}
/// Per output view: in host memory?
template <class... V>
std::array<bool, sizeof...(V)> out_hosts(const std::tuple<V...>&) {
  return {host_resident_v<V>...};
}

/// out_j = temps_j (converted to out_j's element type, as a store in place
/// converts) for every output j of a call: the results of a function that may
/// throw, computed into temporaries first. Cannot throw.
template <class Target, class Temps, class Outs, std::size_t N, std::size_t... J>
void copy_results(const Temps& temps, const Outs& outs, const std::array<operand_layout, N>& out_l, stream_ref s,
                  std::index_sequence<J...>) {
  (cast_layout<Target>(std::get<J>(outs).data(), out_l[J], std::get<J>(temps).data(),
                       contiguous_layout(std::get<J>(temps).data(), sizeof(*std::get<J>(temps).data()), out_l[J].shp),
                       s),
   ...);
}

/// The ufunc class's in-memory call for callers below the public layer that have
/// parsed the call already (run_expression): no second parse.
struct vectorized_access;

/// Runs expression `e` as one call on target Tg (defined below the ufunc class).
template <class Tg, bool Unsafe = false, class E, class Outs>
auto run_expression(const E& e, const Outs& outs, stream_ref s);

template <class Tup>
decltype(auto) unwrap_single(Tup&& t) {
  if constexpr (std::tuple_size_v<bare_t<Tup>> == 1)
    return std::get<0>(std::forward<Tup>(t));
  else
    return bare_t<Tup>(std::forward<Tup>(t));
}

}  // namespace ufunc::detail
