// The one route of a call that takes inputs: a ufunc call (`f(x, y, ...)`) and a
// reduction (`ufunc::sum(x, ...)`, `reduce`, `map_reduce`) take it from their
// parsed arguments to the path that runs them, in this order:
//   1. other libraries' arrays (Thrust vectors, detail::foreign_array): the call
//      again with their views;
//   2. a sharded operand or a sharded `out`: once per shard (sharded.hpp);
//   3. inputs the element function cannot take: the one compile-time report
//      (nothing else of the call is instantiated);
//   4. `vec<D>` inputs: the same call on their components, the function
//      regrouping them (core_dims.hpp);
//   5. lazy expressions among the inputs: fused with the call into one pass;
//   6. otherwise the operation's own call, which stages host containers to the
//      target, streams host memory through a device, or runs in memory.
// Steps 5 and 6 get the call's controls (stream, out, axes, ...) read here, the
// call's one parse of its trailing arguments (`read_controls`, call.hpp).
// An NVTX range named after the call covers steps 2-6 (trace.hpp). Each step is
// a hook of the operation (`Hooks`: again, name, shards, function, rebind,
// fused(controls, args...), plain(controls, args...)); the route decides which
// one runs, so the order and the conditions live here once.
#pragma once

#include <cstddef>
#include <tuple>
#include <utility>

#include "../expression.hpp"  // is_expression_v
#include "../out.hpp"         // sharded_out_arg
#include "arg_traits.hpp"
#include "call.hpp"  // read_controls
#include "core_dims.hpp"
#include "signature.hpp"  // failed_call
#include "trace.hpp"

namespace ufunc::detail {

/// For calls whose inputs are checked further down (reductions check their map
/// on the plain path).
struct inputs_checked_later {
  static constexpr bool ok = true;
};

/// Runs the call `h` describes with `args` (NIN of them inputs) down the route
/// above. InputsCheck::ok: whether the element function takes the inputs (a
/// ufunc call's `inputs_check`, asked only once steps 1 and 2 did not apply).
template <std::size_t NIN, class InputsCheck, class Hooks, class... Args>
decltype(auto) call_route(const Hooks& h, Args&&... args) {
  if constexpr ((is_foreign_v<Args> || ...)) {
    return h.again(adapt(std::forward<Args>(args))...);
  } else {
    const trace_range range(h.name());  // an NVTX range named after the call
    if constexpr (((is_sharded_operand_v<Args> || sharded_out_arg<Args>()) || ...)) {
      return h.shards(std::forward<Args>(args)...);
    } else if constexpr (!InputsCheck::ok) {
      InputsCheck::report();  // one message (arity, vec<D>, types); nothing else of the call is instantiated
      return failed_call{};
    } else if constexpr (any_core_v<Args...>) {
      return with_core_dims<NIN>(h.name(), h.function(), std::forward_as_tuple(std::forward<Args>(args)...),
                                 [&](auto g, auto&&... split) {
                                   return h.rebind(g)(std::forward<decltype(split)>(split)...);
                                 });
    } else if constexpr ((is_expression_v<Args> || ...)) {
      return h.fused(read_controls(args...), std::forward<Args>(args)...);
    } else {
      return h.plain(read_controls(args...), std::forward<Args>(args)...);
    }
  }
}

}  // namespace ufunc::detail
