// The sharded wing: what the operations of sharded.hpp run on. Per device
// (is_gpu_target, copy_any, drain, for_each_shard over the per-device streams),
// replicated operands (`replicate`: NCCL broadcast or copies), the arguments of
// a sharded call (sharded_in, sharded_leaf, sharded_plan: checks before any
// work), the combination of partial results (`combine_partials`: NCCL reduce
// or copies and a fold) and the sharded versions of the calls (`sharded_ops`).
// It sits above the public operations (it runs them per shard) and only
// sharded.hpp includes it (scripts/check_layers.py).
#pragma once

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstring>
#include <exception>
#include <functional>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "../array.hpp"
#include "../array_view.hpp"
#include "../axis.hpp"
#include "../config.hpp"
#include "../detail/call.hpp"
#include "../detail/elementwise.hpp"
#include "../detail/sharded.hpp"
#include "../detail/staged_out.hpp"
#include "../error.hpp"
#include "../full.hpp"
#include "../lazy.hpp"
#include "../matmul.hpp"
#include "../ops.hpp"
#include "../out.hpp"
#include "../reduce.hpp"
#include "../shape.hpp"
#include "../sharded_array.hpp"
#include "../stream.hpp"
#include "../vectorize.hpp"

#include "../detail/cuda/nccl.hpp"  // collectives<target::cuda> (CUDA builds with NCCL only)
#include "ring.hpp"               // y operands passed block by block (pairwise reductions)

namespace ufunc::detail {

/// f over the engine's own fresh arrays (partials and results: contiguous and
/// of one shape by construction), through the backends' flat kernel alone (a
/// `vectorized` call would also compile the strided and tiled kernels, which
/// these layouts never take). `into(a, s)` / `into(a, b, s)`: a = f(a) or
/// f(a, b) in place, on s; `make(a, s)`: a new array f(a).
template <class Target, class F>
struct flat_call {
  F f;
  template <class A>
  void into(array<A, Target>& a, stream_ref s) const {
    const auto l = contiguous_layout(a.data(), sizeof(A), a.shape());
    run_contiguous<Target, A>(f, a.size(), cuda::std::make_tuple(a.data()), cuda::std::make_tuple(in_ptr<A>{a.data()}),
                              std::array<operand_layout, 2>{l, l}, s);
  }
  template <class A>
  void into(array<A, Target>& a, const array<A, Target>& b, stream_ref s) const {
    if (b.shape() != a.shape()) throw std::logic_error("ufunc internal error: partials of different shapes");
    const auto l = contiguous_layout(a.data(), sizeof(A), a.shape());
    run_contiguous<Target, A>(f, a.size(), cuda::std::make_tuple(a.data()),
                              cuda::std::make_tuple(in_ptr<A>{a.data()}, in_ptr<A>{b.data()}),
                              std::array<operand_layout, 3>{l, l, contiguous_layout(b.data(), sizeof(A), b.shape())}, s);
  }
  template <class A>
  auto make(const array<A, Target>& a, stream_ref s) const {
    using R = std::decay_t<std::invoke_result_t<const F&, const A&>>;
    array<R, Target> r(a.shape(), s);
    run_contiguous<Target, R>(f, a.size(), cuda::std::make_tuple(r.data()), cuda::std::make_tuple(in_ptr<A>{a.data()}),
                              std::array<operand_layout, 2>{contiguous_layout(r.data(), sizeof(R), r.shape()),
                                                            contiguous_layout(a.data(), sizeof(A), a.shape())},
                              s);
    return r;
  }
};

/// A reference to a callable (not owning it: it must outlive every call). The
/// helpers that combine a sharded call's partials take theirs through it, so
/// that they are compiled once per target, op and result type, not once per
/// calling lambda (each reduction, each form of its call).
template <class Sig>
class function_ref;
template <class R, class... A>
class function_ref<R(A...)> {
 public:
  template <class F, std::enable_if_t<!std::is_same_v<std::decay_t<F>, function_ref>, int> = 0>
  function_ref(F&& f) noexcept  // NOLINT: implicit, as a lambda's conversion to it
      : obj_(const_cast<void*>(static_cast<const void*>(std::addressof(f)))),
        call_([](void* o, A... a) -> R { return (*static_cast<std::remove_reference_t<F>*>(o))(std::forward<A>(a)...); }) {}
  R operator()(A... a) const { return call_(obj_, std::forward<A>(a)...); }

 private:
  void* obj_;
  R (*call_)(void*, A...);
};

template <class Target>
constexpr bool is_gpu_target() {
  return target_traits<Target>::is_device;
}

/// Devices present for Target (-1: no bound, the host target's labels).
template <class Target>
int device_count() {
  return runtime<Target>::device_count();
}

/// A device set Target can shard over: ids in range and distinct; more than
/// one GPU only with NCCL. value_error otherwise, before any allocation.
template <class Target>
void check_devices(const device_set& d, const char* what) {
  check_device_ids(d.ids(), device_count<Target>(), what);
  if constexpr (is_gpu_target<Target>() && !collectives<Target>::available)
    if (d.size() > 1)
      throw value_error(std::string(what) + ": sharding over " + std::to_string(d.size()) + " GPUs " + d.str() +
                        " needs NCCL, and this build has none (configure with UFUNC_WITH_NCCL=ON and NCCL "
                        "installed; see docs/multi_gpu.md)");
}

/// The CUDA device holding `p` (-1: not device memory, or the host target).
template <class Target>
int device_of(const void* p) {
  return runtime<Target>::device_of(p);
}

/// Waits for all work on the device holding a plain operand, so that the
/// sharded streams (which do not order with the caller's) read it complete.
template <class Target>
void wait_device_of(const void* p) {
  if constexpr (is_gpu_target<Target>()) {
    const int d = device_of<Target>(p);
    if (d < 0) return;
    device_guard<Target> g(d);
    runtime<Target>::device_synchronize();
  }
  (void)p;
}

/// Copies `bytes` between any two places (peer devices, host) on `s`.
/// Between two devices it names both (cudaMemcpyPeerAsync): arrays come from
/// each device's stream-ordered pool, whose memory is not mapped into the
/// peers (no cudaMemPoolSetAccess), and cudaMemcpyDefault then fails with
/// cudaErrorInvalidValue; the peer copy goes over NVLink/PCIe or is staged.
template <class Target>
void copy_any(void* dst, const void* src, std::size_t bytes, stream_ref s) {
  if constexpr (is_gpu_target<Target>()) {
    runtime<Target>::copy_any(dst, src, bytes, s.get());
    return;
  }
  memory<target::host>::copy(dst, src, bytes, s);
}

/// Runs fn(i, stream of device i) with device i current, for every shard,
/// enqueueing all before waiting for any; on a throw, every device's work is
/// drained before the exception leaves (results already made are then freed
/// by their owners' destructors). Returns fn's results in shard order, after
/// waiting for every device unless `wait` is false (the reductions' partials:
/// their combination is enqueued behind them and drains once).
template <class Target, class Fn>
auto for_each_shard(const std::vector<int>& ids, Fn&& fn, bool wait = true) {
  using R = std::invoke_result_t<Fn&, int, stream_ref>;
  std::vector<R> out;
  out.reserve(ids.size());
  try {
    for (std::size_t i = 0; i < ids.size(); ++i) {
      device_guard<Target> g(ids[i]);
      out.push_back(fn(static_cast<int>(i), shard_stream<Target>(ids[i])));
    }
  } catch (...) {
    try {
      drain<Target>(ids);
    } catch (...) {  // the first failure is the one reported
    }
    throw;
  }
  if (wait) drain<Target>(ids);  // (a caller that does not wait drains on every path itself)
  return out;
}

/// A copy of a plain operand on every device of a set (or the operand itself
/// where it already is there: always on the host target). On GPUs with NCCL
/// and more than one device the copies are one ncclBroadcast from the device
/// holding it (or from the set's first device, after a copy, when it is held
/// elsewhere); otherwise plain copies.
template <class T, class Target>
struct replica {
  array_view<const T, Target> original;
  std::vector<array<T, Target>> copies;  ///< per shard; empty where `original` is used
  std::vector<bool> own;

  array_view<const T, Target> at(int i) const {
    return own[static_cast<std::size_t>(i)] ? copies[static_cast<std::size_t>(i)].view() : original;
  }
  ~replica() {
    for (std::size_t i = 0; i < copies.size(); ++i)
      if (copies[i].data()) {
        try {
          device_guard<Target> g(ids[i]);
          copies[i] = array<T, Target>();
        } catch (...) {
          copies[i] = array<T, Target>();
        }
      }
  }
  replica() = default;
  replica(replica&&) noexcept = default;
  std::vector<int> ids;
};

template <class T, class Target>
replica<T, Target> replicate(array_view<const T, Target> v, const std::vector<int>& ids) {
  replica<T, Target> r;
  r.original = v;
  r.ids = ids;
  r.own.assign(ids.size(), false);
  r.copies.resize(ids.size());
  if constexpr (!is_gpu_target<Target>()) {
    return r;
  } else {
    const int src_dev = device_of<Target>(v.data());
    wait_device_of<Target>(v.data());
    const bool dense = v.is_contiguous();
    int root = -1;
    for (std::size_t i = 0; i < ids.size(); ++i)
      if (ids[i] == src_dev) root = static_cast<int>(i);
    if (root >= 0 && ids.size() == 1 && dense) return r;  // already there
    const shape s = v.shape();
    const std::size_t bytes = static_cast<std::size_t>(s.count()) * sizeof(T);
    // A contiguous copy where the operand is not contiguous (strided views).
    array<T, Target> packed;
    if (!dense) {
      const int d = src_dev >= 0 ? src_dev : ids[0];
      device_guard<Target> g(d);
      packed = materialize<Target, T>(layout_of(v), shard_stream<Target>(d));
      sync_stream<Target>(shard_stream<Target>(d));
    }
    const T* src = dense ? v.data() : packed.data();
    std::vector<stream_ref> st;
    for (int d : ids) st.push_back(shard_stream<Target>(d));
    auto alloc = [&](std::size_t i) {
      device_guard<Target> g(ids[i]);
      r.copies[i] = array<T, Target>(s, st[i]);
      r.own[i] = true;
    };
    try {
      if constexpr (collectives<Target>::available) {  // one broadcast
        if (ids.size() > 1) {
          std::vector<void*> buf(ids.size());
          if (root < 0 || !dense) {  // the root's buffer: a copy on the set's first device
            root = 0;
            alloc(0);
            device_guard<Target> g(ids[0]);
            copy_any<Target>(r.copies[0].data(), src, bytes, st[0]);
          }
          for (std::size_t i = 0; i < ids.size(); ++i) {
            if (static_cast<int>(i) == root) {
              buf[i] = r.own[i] ? static_cast<void*>(r.copies[i].data()) : const_cast<T*>(src);
            } else {
              alloc(i);
              buf[i] = r.copies[i].data();
            }
          }
          collectives<Target>::broadcast(ids, buf, bytes, root, st);
          drain<Target>(ids);
          return r;
        }
      }
      for (std::size_t i = 0; i < ids.size(); ++i) {
        if (static_cast<int>(i) == root && dense) continue;
        alloc(i);
        device_guard<Target> g(ids[i]);
        copy_any<Target>(r.copies[i].data(), src, bytes, st[i]);
      }
      drain<Target>(ids);
    } catch (...) {
      try {
        drain<Target>(ids);
      } catch (...) {
      }
      throw;
    }
    return r;
  }
}

// ---- arguments of a sharded call --------------------------------------------

/// A sharded array named in a lazy expression over sharded arrays: held by
/// pointer (a named array must outlive the evaluation, as in ufunc::lazy) or,
/// for an rvalue, owned (shared by the copies of the expression).
template <class S>
struct sharded_leaf {
  std::shared_ptr<const S> own;
  const S* a = nullptr;
};
template <class P>
struct is_sharded_leaf : std::false_type {};
template <class S>
struct is_sharded_leaf<sharded_leaf<S>> : std::true_type {};

/// A sharded expression as prepared for the per-shard calls: its plain arrays
/// replicated, its sharded leaves and maker referred to; pick_arg(p, i) builds
/// shard i's ordinary expression (expression.hpp) from it.
template <class Maker, class... P>
struct prepared_expr {
  const Maker* maker;
  std::tuple<P...> args;
};
template <class P>
struct is_prepared_expr : std::false_type {};
template <class M, class... P>
struct is_prepared_expr<prepared_expr<M, P...>> : std::true_type {};


/// A sharded input as prepared for the per-shard calls.
template <class S>
struct sharded_in {
  const S* a;
};
template <class P>
struct is_sharded_in : std::false_type {};
template <class S>
struct is_sharded_in<sharded_in<S>> : std::true_type {};
template <class P>
inline constexpr bool is_sharded_in_v = is_sharded_in<P>::value;
template <class P>
struct is_replica : std::false_type {};
template <class T, class Tg>
struct is_replica<replica<T, Tg>> : std::true_type {};
template <class P>
inline constexpr bool is_replica_v = is_replica<P>::value;

template <class A>
constexpr void check_sharded_arg() {
  using B = bare_t<A>;
  static_assert(!is_stream_v<B>,
                "ufunc: a call on sharded arrays takes no stream: each device runs on its own sharded stream");
  static_assert(!arg_traits<B>::is_vector && !is_pinned<B>::value,
                "ufunc: a call on sharded arrays takes no host containers (std::vector, pinned_array): shard "
                "them (ufunc::shard) or copy them to a device array");
  static_assert(!is_expression_v<B>,
                "ufunc: a plain lazy expression cannot mix with sharded arrays (its arrays are not sharded): build "
                "the expression from the sharded arrays (f.lazy(x, ...), ufunc::lazy(x) * ...)");
}

/// A sharded array's points (vec<D>) as prepared for the per-shard calls, and a
/// plain vec<D> operand replicated to the devices: pick_arg gives shard i's vec<D>.
template <int D, class S>
struct sharded_vec_in {
  static constexpr int core = D;
  const S* a;
};
template <int D, class T, class Tg>
struct replica_vec {
  static constexpr int core = D;
  replica<T, Tg> r;
};
template <class P>
struct is_sharded_vec_in : std::false_type {};
template <int D, class S>
struct is_sharded_vec_in<sharded_vec_in<D, S>> : std::true_type {};
template <class P>
struct is_replica_vec : std::false_type {};
template <int D, class T, class Tg>
struct is_replica_vec<replica_vec<D, T, Tg>> : std::true_type {};
template <int D, class S>
sharded_vec_in<D, S> prepare_vec(const sharded_vec_arg<D, S>& v, const std::vector<int>&) {
  return {v.array};
}
template <int D, class T, class Tg>
replica_vec<D, T, Tg> prepare_vec(const vec_arg<D, T, Tg>& v, const std::vector<int>& ids) {
  return {replicate<T, Tg>(v.view, ids)};
}

/// The checks of a vec<D> operand of a sharded call (before any work): a last
/// axis of D, and (sharded) a loop axis 0 to shard, so rank >= 2.
template <int D>
void check_vec_operand(const char* name, const shape& s, bool sharded) {
  if (s.size() < (sharded ? 2 : 1) || s[s.size() - 1] != D)
    throw shape_error(std::string(name) + ": ufunc::vec<" + std::to_string(D) + "> of " +
                      (sharded ? "a sharded array" : "an array") + " of shape " + s.str() + ": its last axis must be " +
                      "the core dimension of " + std::to_string(D) +
                      (sharded ? " and it needs a loop axis before it (axis 0, the sharded one): shape (N, ..., " +
                                     std::to_string(D) + ")"
                               : ""));
}

/// Out views of a sharded call must all be sharded.
template <class... V>
constexpr bool all_sharded_outs(const out_t<V...>*) {
  return (is_sharded_out<V>::value && ...);
}

template <class A>
auto prepare_arg(const A& a, const std::vector<int>& ids) {
  using B = bare_t<A>;
  if constexpr (is_sharded<B>::value) {
    return sharded_in<B>{&a};
  } else if constexpr (is_sharded_vec<B>::value || core_of<B>::value > 0) {
    return prepare_vec(a, ids);
  } else if constexpr (is_sharded_leaf<B>::value) {
    return sharded_in<bare_t<decltype(*a.a)>>{a.a};
  } else if constexpr (is_sharded_expr<B>::value) {
    return std::apply(
        [&](const auto&... x) {
          return prepared_expr<typename B::maker_type, decltype(prepare_arg(x, ids))...>{
              &a.maker(), std::make_tuple(prepare_arg(x, ids)...)};
        },
        a.args());
  } else if constexpr (is_out<B>::value) {
    static_assert(all_sharded_outs(static_cast<const B*>(nullptr)),
                  "ufunc: the out(...) of a call on sharded arrays must be sharded arrays");
    return a;
  } else if constexpr (arg_traits<B>::is_array) {
    using T = typename arg_traits<B>::value_type;
    using Tg = typename arg_traits<B>::target_type;
    return replicate<T, Tg>(array_view<const T, Tg>(a), ids);
  } else {
    return a;  // scalars and controls (axis, keepdims, unsafe_cast, a variant)
  }
}

/// prepare_arg for a reduction given y operands: every sharded leaf becomes a
/// ring_in (sharded/ring.hpp) whose slot is listed in `slots`: a y operand (its
/// loop rank below the call's `rank`) reads the block the ring brings, the
/// others their own shard; plain operands are replicated as prepare_arg does.
template <class A>
auto prepare_ring(const A& a, const std::vector<int>& ids, int rank,
                  std::vector<std::shared_ptr<ring_slot_base>>& slots) {
  using B = bare_t<A>;
  if constexpr (is_sharded<B>::value) {
    return make_ring_in<0>(a, a.ndim() < rank, slots);
  } else if constexpr (is_sharded_vec<B>::value) {
    return make_ring_in<B::core>(*a.array, a.array->ndim() - 1 < rank, slots);
  } else if constexpr (is_sharded_leaf<B>::value) {
    return make_ring_in<0>(*a.a, a.a->ndim() < rank, slots);
  } else if constexpr (is_sharded_expr<B>::value) {
    return std::apply(
        [&](const auto&... x) {
          return prepared_expr<typename B::maker_type, decltype(prepare_ring(x, ids, rank, slots))...>{
              &a.maker(), std::make_tuple(prepare_ring(x, ids, rank, slots)...)};
        },
        a.args());
  } else {
    return prepare_arg(a, ids);
  }
}

template <class P>
decltype(auto) pick_arg(P& p, int i) {
  if constexpr (is_sharded_in_v<P>) {
    return static_cast<const typename std::remove_pointer_t<decltype(p.a)>::shard_type&>(p.a->shard(i));
  } else if constexpr (is_sharded_vec_in<P>::value) {
    return ufunc::vec<P::core>(p.a->shard(i).view());
  } else if constexpr (is_replica_vec<P>::value) {
    return ufunc::vec<P::core>(p.r.at(i));
  } else if constexpr (is_replica_v<P>) {
    return p.at(i);
  } else if constexpr (is_ring_in<P>::value) {  // a view of shard i's own rows, or of the y block it reads now
    return p.pick(i);
  } else if constexpr (is_prepared_expr<P>::value) {  // shard i's expression (a new node, owned by the caller)
    return std::apply([&](auto&... q) { return (*p.maker)(pick_arg(q, i)...); }, p.args);
  } else if constexpr (is_out<P>::value) {
    return std::apply([i](auto... so) { return ufunc::out(so.array->shard(i)...); }, p.views);
  } else {
    return static_cast<const P&>(p);
  }
}


/// The target of a sharded call: that of its first sharded operand.
template <class... A>
struct sharded_target;
template <class A, class... R>
struct sharded_target<A, R...> {
  using type = typename sharded_target<R...>::type;
};
template <class T, class Tg, class... R>
struct sharded_target<sharded_array<T, Tg>, R...> {
  using type = Tg;
};
template <class S, class... R>
struct sharded_target<out_t<sharded_out<S>>, R...> {
  using type = typename S::target_type;
};
template <class M, class... A, class... R>
struct sharded_target<sharded_expression<M, A...>, R...> {
  using type = typename sharded_expression<M, A...>::target_type;
};
template <class S, class... R>
struct sharded_target<sharded_leaf<S>, R...> {
  using type = typename S::target_type;
};
template <int D, class S, class... R>
struct sharded_target<sharded_vec_arg<D, S>, R...> {
  using type = typename S::target_type;
};
template <>
struct sharded_target<> {
  using type = void;
};

/// visit(x) for every operand of a call, looking through sharded expressions
/// to their leaves (the sharded arrays, plain arrays and scalars they hold).
template <class V, class X>
void visit_leaves(V& visit, const X& x) {
  using B = bare_t<X>;
  if constexpr (is_sharded_expr<B>::value)
    std::apply([&](const auto&... a) { (visit_leaves(visit, a), ...); }, x.args());
  else if constexpr (is_sharded_leaf<B>::value)
    visit(*x.a);
  else
    visit(x);
}

/// What a sharded call runs over, found (and checked) before any work.
struct sharded_plan {
  device_set devices{std::vector<int>{}};
  std::vector<index_t> rows;         ///< this process's shards' rows
  std::vector<index_t> global_rows;  ///< every shard's rows (one per rank across processes)
  shape bshape;  ///< the broadcast global shape of the inputs
  int rank = 0;
  std::string row_what;  ///< the first sharded operand of the call's rank, for messages
  /// Sharded inputs of a lower rank than the call (the y_j of a pairwise
  /// reduction): their axis 0, the one they are sharded along, is the call's
  /// axis `ring_axis` (-1: none). Every shard's (or rank's) rows of them, the
  /// first one's description, and why they cannot be passed around block by
  /// block (empty when they can; a reduction over ring_axis throws it).
  int ring_axis = -1;
  std::vector<index_t> ring_rows;
  std::string ring_what, ring_problem;
};

/// Checks the operands of a sharded call: every sharded operand (input or out)
/// of the call's rank sharded alike (same device set, same rows per shard, same
/// rank; else shape_error naming both), every plain array replicable
/// (replicable() in detail/sharded.hpp), the global shapes broadcasting, and a
/// sharded out of exactly the broadcast shape. Sharded inputs of a lower rank
/// (y operands: axis 0 is then another axis of the call) are recorded in
/// ring_axis and the fields after it: only a reduction over that axis takes
/// them (sharded/ring.hpp), and what keeps them from it is in ring_problem.
/// The operands of a sharded call as plan_sharded collects them (the template
/// part, per call), for plan_of's checks (compiled once).
struct plan_operands {
  struct operand {
    const device_set* devices;
    const std::vector<index_t>* rows;
    const std::vector<index_t>* global_rows;
    int loop_rank;  ///< the rank the call sees (a vec<D> operand's without its core axis)
    index_t extent;  ///< its global axis 0
    std::string what;
    int in = -1;  ///< its index among the inputs' shapes (-1: an out)
  };
  std::vector<operand> sharded;
  std::vector<shape> ins;
  std::vector<std::string> in_what;  ///< per input: its description ("" for scalars' absence)
  std::vector<std::pair<shape, std::string>> plains;
  std::vector<shape> out_shapes;
  template <class S>
  void add(const S& s, const std::string& role, int loop_rank, bool input) {
    sharded.push_back({&s.devices(), &s.rows(), &s.global_rows(), loop_rank, s.shape().size() > 0 ? s.shape()[0] : 0,
                       role + " " + s.sharding(), input ? static_cast<int>(ins.size()) - 1 : -1});
    if (input) in_what.back() = sharded.back().what;
  }
};
inline sharded_plan plan_of(const char* name, const plan_operands& ops);

template <class... A>
sharded_plan plan_sharded(const char* name, const A&... a) {
  plan_operands ops;
  auto visit = [&](const auto& x) {
    using B = bare_t<decltype(x)>;
    if constexpr (is_sharded<B>::value) {
      ops.ins.push_back(x.shape());
      ops.in_what.emplace_back();
      ops.add(x, "input", x.ndim(), true);
    } else if constexpr (is_sharded_vec<B>::value) {  // its points: the loop shape, without the core axis
      const shape& u = x.array->shape();
      check_vec_operand<B::core>(name, u, true);
      ops.ins.emplace_back(u.begin(), u.end() - 1);
      ops.in_what.emplace_back();
      ops.add(*x.array, "ufunc::vec<" + std::to_string(B::core) + "> input", x.array->ndim() - 1, true);
    } else if constexpr (core_of<B>::value > 0) {  // a plain array's points, replicated
      const shape u = x.view.shape();
      check_vec_operand<core_of<B>::value>(name, u, false);
      ops.ins.emplace_back(u.begin(), u.end() - 1);
      ops.in_what.push_back("plain ufunc::vec<" + std::to_string(core_of<B>::value) + "> input of shape " + u.str());
      ops.plains.emplace_back(ops.ins.back(), "");
    } else if constexpr (is_out<B>::value) {
      std::apply([&](const auto&... so) {
        ((ops.add(*so.array, "out", so.array->ndim(), false), ops.out_shapes.push_back(so.array->shape())), ...);
      }, x.views);
    } else if constexpr (arg_traits<B>::is_array) {
      ops.ins.push_back(x.shape());
      ops.in_what.push_back("plain array of shape " + x.shape().str());
      ops.plains.emplace_back(x.shape(), "");
    }
  };
  (visit_leaves(visit, a), ...);
  return plan_of(name, ops);
}

/// plan_sharded's checks of the operands it collected.
inline sharded_plan plan_of(const char* name, const plan_operands& ops) {
  using operand = plan_operands::operand;
  sharded_plan p;
  const std::vector<operand>& sharded = ops.sharded;
  const std::vector<shape>& ins = ops.ins;
  const std::vector<std::string>& in_what = ops.in_what;
  const std::vector<std::pair<shape, std::string>>& plains = ops.plains;
  const std::vector<shape>& out_shapes = ops.out_shapes;
  if (sharded.empty()) throw shape_error(std::string(name) + ": no sharded operand");
  // The call's rank: the highest of the sharded operands'; the first of that rank
  // is the reference the others of that rank (and the outs) must be sharded like.
  int top = 0;
  for (const auto& o : sharded) top = o.loop_rank > top ? o.loop_rank : top;
  const operand* ref = nullptr;
  for (const auto& o : sharded)
    if (!ref && o.loop_rank == top) ref = &o;
  p.devices = *ref->devices;
  p.rows = *ref->rows;
  p.global_rows = *ref->global_rows;
  p.rank = top;
  p.row_what = ref->what;
  const operand* ring = nullptr;
  for (const auto& o : sharded) {
    if (o.loop_rank == top || o.in < 0 || o.loop_rank < 1) {
      if (*o.devices != p.devices || *o.rows != p.rows || *o.global_rows != p.global_rows || o.loop_rank != top)
        throw shape_error(std::string(name) + ": sharded operands must be sharded alike (same devices, same rows per "
                          "shard, same rank), but the " + ref->what + " and the " + o.what + " are not");
    } else if (!ring) {  // the first y operand
      ring = &o;
      p.ring_axis = top - o.loop_rank;
      p.ring_rows = *o.global_rows;
      p.ring_what = o.what;
      if (*o.devices != p.devices)
        p.ring_problem = "the " + o.what + " and the " + ref->what + " are sharded over different device sets (or " +
                         "communicators): the y blocks travel between the devices (ranks) of the x operands";
    } else if (p.ring_problem.empty() &&
               (*o.devices != *ring->devices || *o.rows != *ring->rows || *o.global_rows != *ring->global_rows ||
                o.loop_rank != ring->loop_rank)) {
      p.ring_problem = "the operands sharded along another axis than the call's axis 0 must be sharded alike (same "
                       "devices, same rows per shard, same rank), but the " + ring->what + " and the " + o.what +
                       " are not";
    }
  }
  for (const auto& pl : plains)
    if (!replicable(pl.first, p.rank))
      throw shape_error(std::string(name) + ": the plain array of shape " + pl.first.str() +
                        " cannot be replicated to the shards of the " + ref->what +
                        ": it must broadcast against each shard without covering axis 0 (a lower rank, or "
                        "extent 1 on axis 0); shard it alike instead (ufunc::shard)");
  p.bshape = broadcast_shapes(ins, name);
  for (const auto& os : out_shapes)
    if (os != p.bshape)
      throw shape_error(std::string(name) + ": the sharded out has shape " + os.str() + " but the inputs broadcast to " +
                        p.bshape.str());
  if (ring && p.ring_problem.empty()) {
    const int k = p.ring_axis;
    if (ring->extent != p.bshape[k])
      p.ring_problem = "the " + ring->what + " is sharded along the call's axis " + std::to_string(k) +
                       ", which it broadcasts along (extent " + std::to_string(ring->extent) + " to " +
                       std::to_string(p.bshape[k]) + ")";
    for (std::size_t q = 0; q < ins.size() && p.ring_problem.empty(); ++q) {
      bool moving_y = false;
      for (const auto& o : sharded) moving_y = moving_y || (o.in == static_cast<int>(q) && o.loop_rank < top);
      const int at = k - (p.rank - ins[q].size());
      if (!moving_y && at >= 0 && ins[q][at] != 1)
        p.ring_problem = "the " + in_what[q] + " moves along the call's axis " + std::to_string(k) +
                         ", the axis the " + ring->what + " is sharded along: an x operand (moving along axis 0) or "
                         "a plain one must have extent 1 there, and a y operand (moving along axis " +
                         std::to_string(k) + ") be sharded like it";
    }
  }
  return p;
}

// ---- across processes ---------------------------------------------------------

/// Across processes, checks that every rank makes the same call before any of
/// them enters a collective of it: the ranks exchange a description of the call
/// (its name, the global shape, every rank's rows, the plain operands' shapes),
/// and a difference throws shape_error on every rank, naming both, instead of
/// leaving ranks waiting for each other. Nothing to do in one process.
inline void agree_on(const sharded_plan& p, const std::string& name, const std::string& plain);

template <class... A>
void agree_across_ranks(const sharded_plan& p, const std::string& name, const A&... a) {
  if (!p.devices.spans_processes()) return;
  std::string plain;  // the plain operands' shapes
  auto visit = [&](const auto& x) {
    using B = bare_t<decltype(x)>;
    if constexpr (!is_sharded<B>::value && !is_out<B>::value && arg_traits<B>::is_array)
      plain += ", a plain array of shape " + x.shape().str();
    else if constexpr (!is_sharded_vec<B>::value && core_of<B>::value > 0)
      plain += ", a plain vec<" + std::to_string(core_of<B>::value) + "> of shape " + x.view.shape().str();
  };
  (visit_leaves(visit, a), ...);
  (void)visit;
  agree_on(p, name, plain);
}

/// agree_across_ranks's exchange (compiled once): the call described by its
/// name, the plan and the plain operands' shapes (`plain`).
inline void agree_on(const sharded_plan& p, const std::string& name, const std::string& plain) {
  std::string d = name + " of shape " + p.bshape.str() + " as rows " + rows_str(p.global_rows);
  if (p.ring_axis >= 0) d += ", y sharded along axis " + std::to_string(p.ring_axis) + " as rows " + rows_str(p.ring_rows);
  d += plain;
  struct desc {
    std::uint64_t hash;  // of the whole description (the text below may be cut)
    char text[240];
  };
  desc mine{};
  mine.hash = 14695981039346656037ull;  // FNV-1a
  for (unsigned char ch : d) mine.hash = (mine.hash ^ ch) * 1099511628211ull;
  d.copy(mine.text, sizeof(mine.text) - 1);
  const auto all = p.devices.comm().allgather(mine);
  for (std::size_t r = 0; r < all.size(); ++r)
    if (all[r].hash != mine.hash || std::string(all[r].text) != std::string(mine.text))
      throw shape_error(name + ": the ranks disagree: rank " + std::to_string(r) + " called " +
                        all[r].text + ", rank " + std::to_string(p.devices.rank()) + " " + mine.text +
                        " (every rank makes the same sharded calls, in the same order)");
}

/// axis_mask (after `check`, the call's own checks of its axes) for a call that
/// may span processes: a rank whose axes are invalid first meets the others in
/// their agreement exchange, under a description no valid call has, then throws
/// its own error; the others throw shape_error from the exchange instead of
/// waiting for it. Ranks that all pass the same invalid axes each throw their own.
inline std::array<bool, max_rank> mask_or_disagree_with(const sharded_plan& p, const controls& o, const char* name,
                                                         function_ref<void()> check,
                                                         function_ref<void(const std::string&)> agree) {
  try {
    check();
    return axis_mask(p.bshape, o.axes_or_null(), name, o.single_axis);
  } catch (...) {
    if (!p.devices.spans_processes()) throw;
    const std::exception_ptr err = std::current_exception();
    try {
      agree(std::string(name) + " over invalid axes " + axes_str(o.axes_or_null()));
    } catch (...) {  // (the others' calls differ: they throw shape_error; this rank its own error)
    }
    std::rethrow_exception(err);
  }
}
template <class Check, class... A>
std::array<bool, max_rank> mask_or_disagree(const sharded_plan& p, const controls& o, const char* name, Check&& check,
                                            const A&... a) {
  return mask_or_disagree_with(p, o, name, check, [&](const std::string& what) { agree_across_ranks(p, what, a...); });
}

/// The checks of a reduction given y operands (plan.ring_axis >= 0; `mask`, its
/// axes): the y operands can travel block by block (ring_problem), the reduction
/// is over their axis, and argmin/argmax (`arg`) reduce over that axis alone.
/// shape_error otherwise (made inside mask_or_disagree's check: every rank throws).
inline void check_ring_reduction(const sharded_plan& p, const std::array<bool, max_rank>& mask, const char* name,
                                 bool arg) {
  if (p.ring_axis < 0) return;
  const std::string k = std::to_string(p.ring_axis);
  if (!p.ring_problem.empty()) throw shape_error(std::string(name) + ": " + p.ring_problem);
  if (!mask[static_cast<std::size_t>(p.ring_axis)])
    throw shape_error(std::string(name) + ": the " + p.ring_what + " is sharded along the call's axis " + k +
                      " (its axis 0), which this reduction keeps: its blocks travel between the devices (ranks) only "
                      "for a reduction over axis " + k + "; reduce over it, or shard the operand like the " +
                      p.row_what);
  int n = 0;
  for (int d = 0; d < p.rank; ++d) n += mask[static_cast<std::size_t>(d)];
  if (arg && n != 1)
    throw shape_error(std::string(name) + ": with the " + p.ring_what + " sharded along the call's axis " + k +
                      ", give ufunc::axis(" + k + ") (the index along it of each x_i's pick)");
}

/// A call other than a reduction over ring_axis given y operands: shape_error,
/// on every rank (a rank meets the others' agreement exchange first, as
/// mask_or_disagree does, so that none is left waiting for it).
template <class... A>
void refuse_ring(const sharded_plan& p, const char* name, const A&... a) {
  if (p.ring_axis < 0) return;
  const shape_error err(std::string(name) + ": the " + p.ring_what + " is sharded along the call's axis " +
                        std::to_string(p.ring_axis) + " (its axis 0), unlike the " + p.row_what +
                        ": only a reduction over that axis takes it (each device or rank reduces its rows against "
                        "one block of it at a time, docs/multi_gpu.md); shard it like the other operands here");
  if (p.devices.spans_processes()) {
    try {
      agree_across_ranks(p, std::string(name) + " given an operand sharded along another axis (refused)", a...);
    } catch (...) {  // (the others' calls differ: they throw shape_error)
    }
  }
  throw err;
}

/// Across processes, the plan of a factory's result over `d` (every rank's
/// rows of global shape `s`), once the ranks agree on the call.
inline sharded_plan factory_plan(const device_set& d, const shape& s, const char* name) {
  sharded_plan p;
  p.devices = d;
  p.bshape = s;
  p.global_rows = split_rows(s[0], d.ranks());
  agree_across_ranks(p, name);
  return p;
}

/// What every other rank throws when rank r's part of a call failed.
inline communication_error rank_failed(const char* name, std::size_t r) {
  return communication_error(std::string(name) + ": rank " + std::to_string(r) +
                             " failed (its error was thrown there); this rank's part is discarded");
}

/// The status exchange of across_ranks (also for a phase that then exchanges data).
inline void rank_status(const device_set& d, const char* name, const std::exception_ptr& err) {
  const auto st = d.comm().allgather(static_cast<int>(err != nullptr));
  if (err) std::rethrow_exception(err);
  for (std::size_t r = 0; r < st.size(); ++r)
    if (st[r]) throw rank_failed(name, r);
}

/// Runs fn() on this rank, then (across processes) exchanges whether it
/// failed: the failed rank throws its own exception, every other rank a
/// communication_error naming it, so that no rank goes on to a collective the
/// failed one never enters. In one process, fn() alone.
template <class Fn>
decltype(auto) across_ranks(const device_set& d, const char* name, Fn&& fn) {
  if (!d.spans_processes()) return fn();
  using R = decltype(fn());
  using Held = std::conditional_t<std::is_reference_v<R>, std::remove_reference_t<R>*, std::optional<R>>;
  Held held{};
  std::exception_ptr err;
  try {
    if constexpr (std::is_reference_v<R>)
      held = &fn();
    else
      held.emplace(fn());
  } catch (...) {
    err = std::current_exception();
  }
  rank_status(d, name, err);
  if constexpr (std::is_reference_v<R>)
    return static_cast<R>(*held);
  else
    return R(std::move(*held));
}

/// Frees arrays with their own device current.
template <class Target, class T>
void release_on(std::vector<array<T, Target>>& v, const std::vector<int>& ids) noexcept {
  for (std::size_t i = 0; i < v.size() && i < ids.size(); ++i) {
    try {
      device_guard<Target> g(ids[i]);
      v[i] = array<T, Target>();
    } catch (...) {
      v[i] = array<T, Target>();
    }
  }
}

template <class Op>
struct reducer_op_name {};


/// Combines the partial results of the shards listed in `live` (each of the
/// same shape, parts[i] on device ids[i]) into one array on ids[0] (the host
/// target: in host memory). NCCL's reduce to the first device when every shard
/// has a partial and NCCL has the op and type; otherwise the partials are copied
/// to the first device and folded there with the op, in shard order.
/// The partials are still being computed (for_each_shard without waiting):
/// every path drains, except the one-partial path when `wait` is false (across
/// processes, where the partial's own stream then orders what follows: the
/// ranks' status exchange runs while it computes).
template <class Target, class Op, class Res>
array<Res, Target> combine_partials(std::vector<array<Res, Target>>& parts, const std::vector<int>& live,
                                    const std::vector<int>& ids, const Op& op, const char* name, bool wait = true) {
  if (live.size() == 1 && (live[0] == 0 || !is_gpu_target<Target>())) {
    if (wait) drain<Target>(ids);
    return std::move(parts[static_cast<std::size_t>(live[0])]);
  }
  if constexpr (collectives<Target>::template reducible<Op, Res>()) {
    if (live.size() == ids.size()) {
      std::vector<Res*> buf;
      std::vector<stream_ref> st;
      for (std::size_t i = 0; i < ids.size(); ++i) {
        buf.push_back(parts[i].data());
        st.push_back(shard_stream<Target>(ids[i]));
      }
      try {
        collectives<Target>::template reduce<Op>(ids, buf, static_cast<std::size_t>(parts[0].size()), st, false, 0);
      } catch (...) {
        try {
          drain<Target>(ids);
        } catch (...) {
        }
        throw;
      }
      drain<Target>(ids);
      return std::move(parts[0]);
    }
  }
  const stream_ref s0 = shard_stream<Target>(ids[0]);
  device_guard<Target> g(ids[0]);
  drain<Target>(ids);  // every partial complete before another device's stream reads it
  auto bring = [&](int i) {
    auto& src = parts[static_cast<std::size_t>(i)];
    if (!is_gpu_target<Target>() || i == 0) return std::move(src);
    array<Res, Target> c(src.shape(), s0);
    copy_any<Target>(c.data(), src.data(), static_cast<std::size_t>(src.size()) * sizeof(Res), s0);
    return c;
  };
  array<Res, Target> acc = bring(live[0]);
  using fold_t = fold_fn<acc_op<Res, Op>>;
  const flat_call<Target, fold_t> fold{fold_t{acc_op<Res, Op>{op}}};
  for (std::size_t k = 1; k < live.size(); ++k) {
    array<Res, Target> part = bring(live[k]);
    fold.into(acc, part, s0);
  }
  sync_stream<Target>(s0);
  return acc;
}

/// This process's partials (make(i, stream) for each shard listed in `live`,
/// the shards with rows; enqueued, not waited for) handed to use(partials);
/// every partial freed on every path, the devices drained first when use throws.
template <class Target, class Res, class Use>
auto with_partials(const std::vector<int>& live, const std::vector<int>& ids,
                   function_ref<array<Res, Target>(int, stream_ref)> make, Use&& use) {
  auto partial = for_each_shard<Target>(ids, [&](int i, stream_ref st) {
    const bool has = std::find(live.begin(), live.end(), i) != live.end();
    return has ? array<Res, Target>(make(i, st)) : array<Res, Target>();
  }, false);
  try {
    auto r = use(partial);
    release_on<Target>(partial, ids);
    return r;
  } catch (...) {
    try {
      drain<Target>(ids);
    } catch (...) {
    }
    release_on<Target>(partial, ids);
    throw;
  }
}

/// This process's partials combined with op (combine_partials; `wait` as
/// there); none when no shard has rows (a rank without rows).
template <class Target, class Op, class Res>
std::optional<array<Res, Target>> combine_local(const std::vector<int>& live, const std::vector<int>& ids, const Op& op,
                                                const char* name, function_ref<array<Res, Target>(int, stream_ref)> make,
                                                bool wait = true) {
  if (live.empty()) return std::nullopt;
  return with_partials<Target, Res>(live, ids, make, [&](std::vector<array<Res, Target>>& partial) {
    return std::optional<array<Res, Target>>(combine_partials<Target, Op, Res>(partial, live, ids, op, name, wait));
  });
}

/// A reduction given y operands, the part each device or rank computes: for
/// every local shard i with here[i], compute(i, block, first, stream) (shard
/// i's reduction against one block of the y operands, the ring's `run` having
/// brought that block) for the blocks in global order, folded in that order
/// (acc = fold(acc, part)); per local shard the fold, or none. Memory: besides
/// the partials, one block a device (ring.hpp). In one process each shard walks
/// the blocks on its own stream (the copies are peer copies, no collective).
/// Across processes every rank posts every block (a collective per block) even
/// when its own work failed or it has none: a failure is rethrown after the
/// last block, for the caller's status exchange (across_ranks,
/// fold_across_ranks), so no rank is left waiting in a broadcast.
template <class Target, class Arr, class Compute, class Fold>
std::vector<std::optional<Arr>> ring_fold(ring_run<Target>& run, const device_set& d, const std::vector<bool>& here,
                                          Compute&& compute, const Fold& fold) {
  const std::vector<ring_block>& blocks = run.blocks();
  auto step = [&](std::optional<Arr>& acc, int i, std::size_t t, stream_ref st) {
    Arr part = compute(i, blocks[t], t == 0, st);
    if (!acc)
      acc = std::move(part);
    else
      fold.into(*acc, part, st);  // (part is freed on its stream, behind the fold)
  };
  if (!d.spans_processes())
    return for_each_shard<Target>(d.ids(), [&](int i, stream_ref st) {
      std::optional<Arr> acc;
      if (!here[static_cast<std::size_t>(i)]) return acc;
      for (std::size_t t = 0; t < blocks.size(); ++t) {
        run.bring(i, blocks[t], st);
        step(acc, i, t, st);
      }
      return acc;
    });
  device_guard<Target> g(d[0]);
  const stream_ref st = shard_stream<Target>(d[0]);
  std::vector<std::optional<Arr>> out(1);
  std::exception_ptr err;
  auto guarded = [&](auto&& f) {
    if (err) return;
    try {
      f();
    } catch (...) {
      err = std::current_exception();
    }
  };
  guarded([&] { run.stage_own(); });
  for (std::size_t t = 0; t < blocks.size(); ++t) {
    if (t == 0) {
      run.post(blocks[0]);
      guarded([&] { run.land(blocks[0], st); });
    }
    if (here[0]) guarded([&] { step(out[0], 0, t, st); });  // enqueued (GPUs): the next post overlaps it
    if (t + 1 < blocks.size()) {
      run.post(blocks[t + 1]);
      guarded([&] { run.land(blocks[t + 1], st); });
    }
  }
  guarded([&] { sync_stream<Target>(st); });
  if (err) {
    try {
      drain<Target>(d.ids());
    } catch (...) {
    }
    out[0].reset();
    std::rethrow_exception(err);
  }
  return out;
}

template <class R>
struct reducer_parts;
template <class AccO, class Map, class Op, class Init, class Kind>
struct reducer_parts<reducer<AccO, Map, Op, Init, Kind>> {
  using acc_override = AccO;
  using map = Map;
  using op = Op;
  using init = Init;
  using kind = Kind;
};

#if defined(UFUNC_TESTING)
namespace testing {
/// Test-only count of the NCCL all-reduces across ranks (tests/mpi/test_mpi.cpp).
inline std::atomic<long>& rank_allreduces() {
  static std::atomic<long> n{0};
  return n;
}
/// Test-only: this rank's next NCCL all-reduce across ranks is skipped and its
/// communicator abandoned, as by a rank that dies there (tests/mpi/test_mpi.cpp).
inline std::atomic<bool>& leave_next_allreduce() {
  static std::atomic<bool> b{false};
  return b;
}
}  // namespace testing
#endif

/// Across processes, the partial results of the ranks (`local()`: this rank's,
/// none on a rank without rows; each of shape `part`) combined with `op` into an
/// array on this rank's first device, the same on every rank. First the ranks
/// exchange a status word each (a rank whose local() threw makes every rank
/// throw, as across_ranks does); then an NCCL all-reduce of the device partials
/// (GPUs whose ranks each have their own, NCCL's ops and types, every rank with
/// rows), else one all-gather of the partials through host memory, folded in
/// rank order.
template <class Target, class Res, class Op>
array<Res, Target> fold_across_ranks(const device_set& d, const char* name,
                                     function_ref<std::optional<array<Res, Target>>(bool)> local, const Op& op,
                                     const shape& part, function_ref<void()> agree) {
  std::optional<array<Res, Target>> mine;
  std::exception_ptr err;
  try {
    mine = local(false);  // enqueued, not waited for: the exchanges below overlap it
  } catch (...) {
    err = std::current_exception();
  }
  agree();  // the ranks' agreement on the call (collective; shape_error on every rank)
  struct header {
    std::int64_t failed, has;
  };
  const auto heads = d.comm().allgather(header{err ? 1 : 0, mine && !err ? 1 : 0});
  if (err) std::rethrow_exception(err);
  bool every = true;
  for (std::size_t r = 0; r < heads.size(); ++r) {
    if (heads[r].failed) throw rank_failed(name, r);
    every = every && heads[r].has;
  }
  const std::size_t count = static_cast<std::size_t>(part.count()), bytes = count * sizeof(Res);
  device_guard<Target> g(d[0]);
  // (Every use of `mine` below is on its own stream, behind the partial.)
  // GPUs with NCCL, every rank with rows, an op and type NCCL has: one
  // all-reduce of the device partials (the same on every rank: it is
  // collective, and so is the bootstrap of its communicator on first use).
  if constexpr (collectives<Target>::available && collectives<Target>::template reducible<Op, Res>()) {
    if (every && d.ranks() > 1 && collectives<Target>::spans(d.comm(), d[0])) {
#if defined(UFUNC_TESTING)
      testing::rank_allreduces().fetch_add(1, std::memory_order_relaxed);
      if (testing::leave_next_allreduce().exchange(false)) {  // a rank that dies here
        collectives<Target>::abandon_ranks(d.comm(), d[0]);
        return std::move(*mine);
      }
#endif
      collectives<Target>::template allreduce_ranks<Op, Res>(d.comm(), d[0], mine->data(), count, mine->stream());
      // Bounded: a rank that died mid-call makes this one throw, not hang.
      collectives<Target>::wait_ranks(d.comm(), d[0], mine->stream(), name);
      return std::move(*mine);
    }
  }
  // Otherwise through host memory: one all-gather of the partials, folded in rank order.
  std::vector<unsigned char> send(bytes), recv(bytes * static_cast<std::size_t>(d.ranks()));
  if (mine) memory<Target>::copy_to_host(send.data(), mine->data(), bytes, mine->stream());
  d.comm().allgather_bytes(send.data(), bytes, recv.data());
  const stream_ref s0 = shard_stream<Target>(d[0]);
  using fold_t = fold_fn<acc_op<Res, Op>>;
  const flat_call<Target, fold_t> fold{fold_t{acc_op<Res, Op>{op}}};
  std::optional<array<Res, Target>> acc;
  for (int r = 0; r < d.ranks(); ++r) {
    if (!heads[static_cast<std::size_t>(r)].has) continue;
    array<Res, Target> x(part, s0);
    memory<Target>::copy_from_host(x.data(), recv.data() + static_cast<std::size_t>(r) * bytes, bytes, s0);
    if (!acc)
      acc = std::move(x);
    else
      fold.into(*acc, x, s0);
  }
  sync_stream<Target>(s0);
  if (!acc) throw value_error(std::string(name) + ": no rank holds rows (internal: the caller checks the count)");
  return std::move(*acc);
}

/// Whether partials of Op over Res may be folded on the host: the library's
/// own ops on arithmetic types (a user's op may be device code only).
template <class Target, class Op, class Res>
constexpr bool host_foldable() {
  if constexpr (!is_gpu_target<Target>()) return true;
  else
    return std::is_arithmetic_v<Res> &&
           (std::is_same_v<Op, plus> || std::is_same_v<Op, multiplies> || std::is_same_v<Op, minimum> ||
            std::is_same_v<Op, maximum> || std::is_same_v<Op, logical_and> || std::is_same_v<Op, logical_or> ||
            std::is_same_v<Op, bit_and> || std::is_same_v<Op, bit_or> || std::is_same_v<Op, bit_xor>);
}

/// A whole reduction's value (host_foldable), over this process's shards
/// and, across processes, over the ranks. `start` first (across processes: a
/// ring's block exchange, in which every rank takes part), then every shard
/// listed in `live` enqueued (make(i, stream, slot): on the CUDA backend the
/// value is left in that device's pinned scratch slot, with no allocation and
/// no wait; elsewhere make returns it), then `agree` while they compute (across
/// processes: the ranks' agreement on the call, collective), the shards'
/// streams drained once and the values folded on the host in shard order.
/// Across processes one all-gather of every rank's status and value follows,
/// folded in rank order (the same value on every rank): one exchange and one
/// wait, where an NCCL all-reduce of 4 bytes costs more. (Two H200s, one
/// process, sum of 2 x 2^30 floats: the fixed cost of the combination is what
/// separates two GPUs' throughput from twice one GPU's.)
template <class Target, class Res, class Op>
Res fold_shard_values(const device_set& d, const std::vector<int>& ids, const std::vector<int>& live, const Op& op,
                      const char* name, function_ref<void()> start,
                      function_ref<Res(int, stream_ref, deferred_value&)> make, function_ref<void()> agree) {
  static_assert(std::is_trivially_copyable_v<Res>, "ufunc: a reduction's value is exchanged as bytes");
  const bool multi = d.spans_processes();
  std::vector<std::optional<Res>> val(ids.size());
  std::vector<deferred_value> slot(ids.size());
  std::exception_ptr err;
  try {
    start();
    for_each_shard<Target>(ids, [&](int i, stream_ref st) {
      const auto k = static_cast<std::size_t>(i);
      if (std::find(live.begin(), live.end(), i) != live.end()) val[k] = make(i, st, slot[k]);
      return 0;
    }, false);  // (it drains every device when one throws)
  } catch (...) {
    err = std::current_exception();
  }
  if (err && !multi) std::rethrow_exception(err);
  try {
    agree();
  } catch (...) {
    try {
      drain<Target>(ids);  // the scratch slots are not left in use
    } catch (...) {
    }
    throw;
  }
  std::optional<Res> acc;
  try {
    if (!err) {
      drain<Target>(ids);
      for (const int i : live) {
        const auto k = static_cast<std::size_t>(i);
        if (slot[k].slot) std::memcpy(static_cast<void*>(&*val[k]), slot[k].slot, sizeof(Res));
        acc = acc ? acc_op<Res, Op>{op}(*acc, *val[k]) : *val[k];
      }
    }
  } catch (...) {
    err = std::current_exception();
  }
  if (!multi) {
    if (err) std::rethrow_exception(err);
    if (!acc) throw value_error(std::string(name) + ": no shard holds rows (internal: the caller checks the count)");
    return *acc;
  }
  struct message {
    std::int64_t failed, has;
    Res value;
  };
  message m{};
  m.failed = err ? 1 : 0;
  m.has = !err && acc ? 1 : 0;
  if (m.has) m.value = *acc;
  const auto all = d.comm().allgather(m);
  if (err) std::rethrow_exception(err);
  std::optional<Res> total;
  for (std::size_t r = 0; r < all.size(); ++r) {
    if (all[r].failed) throw rank_failed(name, r);
    if (all[r].has) total = total ? acc_op<Res, Op>{op}(*total, all[r].value) : all[r].value;
  }
  if (!total) throw value_error(std::string(name) + ": no rank holds rows (internal: the caller checks the count)");
  return *total;
}

// ---- lazy expressions over sharded arrays ------------------------------------

/// The makers of a sharded expression's node: called on shard i's operands
/// (views of its shards, replicas, shard i's sub-expressions, scalars), each
/// returns shard i's ordinary expression node (expression.hpp).
template <class Target, class F>
struct lazy_maker {  // f.lazy(...)
  vectorized<Target, F> f;
  template <class... X>
  auto operator()(X&&... x) const {
    return f.lazy(std::forward<X>(x)...);
  }
};
template <class Op>
struct node_maker {  // the C++ operators
  const char* name;
  template <class... X>
  auto operator()(X&&... x) const {
    return make_node<void>(Op{}, name, std::forward<X>(x)...);
  }
};
struct leaf_maker {  // ufunc::lazy(x)
  template <class X>
  auto operator()(X&& x) const {
    return ufunc::lazy(std::forward<X>(x));
  }
};

/// An operand of a sharded expression as it holds it: a sharded array by
/// pointer (named) or owned (rvalue); a sharded sub-expression by value; a
/// plain array as a view (named: replicated to the devices when it runs); a
/// scalar by value.
template <class A>
auto sharded_part(A&& a) {
  using B = bare_t<A>;
  static_assert(!is_expression_v<B>,
                "ufunc: a lazy expression over sharded arrays cannot take a plain expression (its arrays are not "
                "sharded): build it from sharded arrays, or evaluate it first");
  static_assert(!is_out<B>::value && !is_stream_v<B>, "ufunc: a lazy call takes inputs only");
  check_sharded_arg<A>();
  if constexpr (is_sharded_vec<B>::value || core_of<B>::value > 0) {
    return B(a);  // points: a sharded array held by pointer, a plain one by view (both named)
  } else if constexpr (is_sharded<B>::value) {
    if constexpr (std::is_lvalue_reference_v<A>) {
      return sharded_leaf<B>{nullptr, &a};
    } else {
      auto own = std::make_shared<const B>(std::move(a));
      const B* q = own.get();
      return sharded_leaf<B>{std::move(own), q};
    }
  } else if constexpr (is_sharded_expr<B>::value) {
    return B(std::forward<A>(a));
  } else if constexpr (arg_traits<B>::is_array) {
    static_assert(std::is_lvalue_reference_v<A> || is_view<B>::value,
                  "ufunc: a plain array in a lazy expression over sharded arrays must be a named array (it is "
                  "replicated to every device when the expression runs, and must live until then)");
    using T = typename arg_traits<B>::value_type;
    return array_view<const T, typename arg_traits<B>::target_type>(a);
  } else {
    return B(std::forward<A>(a));  // a scalar
  }
}

template <class Maker, class... X>
auto sharded_node(Maker m, const char* name, X&&... x) {
  return sharded_expression<Maker, decltype(sharded_part(std::forward<X>(x)))...>(std::move(m), name,
                                                                                  sharded_part(std::forward<X>(x))...);
}

/// Operands of a C++ operator that builds a sharded expression: a sharded
/// operand, and an expression (sharded or not: a plain one is refused) among them.
template <class A, class B>
inline constexpr bool sharded_operator_args =
    (is_sharded_operand_v<A> || is_sharded_operand_v<B>) &&
    (is_sharded_expr<bare_t<A>>::value || is_sharded_expr<bare_t<B>>::value || is_expression_v<A> || is_expression_v<B>);

/// Whether a sharded call stages its shards' out copies (staged_out.hpp): with
/// an out on the host target, where a function may throw in any shard, so that
/// no out shard is written unless every shard's results were computed. (Device
/// functions cannot throw: GPU shards write in place.)
template <class Target>
constexpr bool stages_out(bool has_out) {
  return has_out && !is_gpu_target<Target>();
}

/// A sharded reduction's global reduced and kept element counts (the unsharded
/// call's g.R and g.K) and its result's dims (1 for a reduced dim with keepdims).
struct reduced_shape {
  index_t red_count = 1, kept_count = 1;
  std::vector<index_t> dims;
};
inline reduced_shape reduced_shape_of(const sharded_plan& p, const std::array<bool, max_rank>& mask, bool keepdims) {
  reduced_shape r;
  for (int d = 0; d < p.rank; ++d) {
    if (mask[static_cast<std::size_t>(d)]) {
      r.red_count *= p.bshape[d];
      if (keepdims) r.dims.push_back(1);
    } else {
      r.kept_count *= p.bshape[d];
      r.dims.push_back(p.bshape[d]);
    }
  }
  return r;
}

/// A sharded reduction's result into its out (converting as the out's rule
/// allows). At namespace scope: nvcc refuses a private class member as a
/// kernel's template argument.
struct out_copy_fn {
  template <class T>
  UFUNC_HD T operator()(T x) const {
    return x;
  }
};

/// The controls every shard's reduction is called with (shard_reduce), from the
/// call's: its axes (every axis when it names none: a whole reduction, or
/// keepdims alone) and keepdims.
struct shard_axes {
  std::vector<int> axes;
  bool keepdims = false;
};
template <bool Scalar>
shard_axes shard_axes_of(const sharded_plan& p, const controls& o) {
  shard_axes sa;
  if (!Scalar && o.has_axes) {
    sa.axes = o.axes_list;
  } else {
    for (int d = 0; d < p.rank; ++d) sa.axes.push_back(d);
  }
  sa.keepdims = !Scalar && o.keepdims;
  return sa;
}

/// The sharded arrays an operand holds (looking through sharded expressions).
template <class X>
struct sharded_leaves {
  static constexpr int value = is_sharded<X>::value || is_sharded_vec<X>::value || is_sharded_leaf<X>::value ? 1 : 0;
};
template <class M, class... A>
struct sharded_leaves<sharded_expression<M, A...>> {
  static constexpr int value = (0 + ... + sharded_leaves<bare_t<A>>::value);
};
/// Whether a call's inputs may hold y operands (a sharded array of a lower rank
/// than the call's: sharded/ring.hpp): only with two sharded arrays or more
/// among them (one is then the call's reference). The reductions of other
/// inputs compile none of the ring's code.
template <class... In>
inline constexpr bool may_ring = (0 + ... + sharded_leaves<bare_t<In>>::value) >= 2;
/// The ring's prepared operands (prepare_ring), where the inputs may have y operands.
template <bool On, class... In>
struct ring_prep {
  using type = std::tuple<>;
};
template <class... In>
struct ring_prep<true, In...> {
  using type = decltype(std::make_tuple(prepare_ring(std::declval<const In&>(), std::declval<const std::vector<int>&>(),
                                                     0, std::declval<std::vector<std::shared_ptr<ring_slot_base>>&>())...));
};

template <class... A>
struct sharded_ops {
  /// f.lazy(args...) with sharded operands: a sharded expression (nothing runs;
  /// shapes and shardings are checked now).
  template <class Target, class F, class... Args>
  static auto lazy(const vectorized<Target, F>& f, Args&&... args) {
    auto e = sharded_node(lazy_maker<Target, F>{f}, f.name(), std::forward<Args>(args)...);
    static_assert(std::is_same_v<typename decltype(e)::target_type, Target>,
                  "f.lazy: the sharded arrays must live in the ufunc's target memory");
    return e;
  }

  /// ufunc::evaluate(e, out?, unsafe_cast?) of a sharded expression: shard i's
  /// expression evaluated on device i (one fused kernel per shard).
  template <class E, class... C>
  static decltype(auto) evaluate(const E& e, C&&... c) {
    (check_sharded_arg<C>(), ...);
    constexpr bool has_out = (is_out<bare_t<C>>::value || ...);
    using Target = typename E::target_type;
    const sharded_plan p = plan_sharded("ufunc::evaluate", e, c...);
    check_devices<Target>(p.devices, "ufunc::evaluate");
    refuse_ring(p, "ufunc::evaluate", e, c...);
    agree_across_ranks(p, "ufunc::evaluate", e, c...);
    return across_ranks(p.devices, "ufunc::evaluate", [&]() -> decltype(auto) { return evaluate_here<has_out>(p, e, c...); });
  }

  template <bool has_out, class E, class... C>
  static decltype(auto) evaluate_here(const sharded_plan& p, const E& e, C&&... c) {
    using Target = typename E::target_type;
    const std::vector<int>& ids = p.devices.ids();
    auto pe = prepare_arg(e, ids);
    auto pc = std::make_tuple(prepare_arg(c, ids)...);
    staged_outputs staged;
    auto res = for_each_shard<Target>(ids, [&](int i, stream_ref st) {
      const staging_scope scope(stages_out<Target>(has_out) ? &staged : nullptr);
      // Shard i's expression run as evaluate runs one (its controls are known
      // from their types: nothing is parsed per shard).
      return std::apply(
          [&](auto&... q) {
            return run_expression<Target, call_args<c_out | c_unsafe_cast, bare_t<C>...>::has(c_unsafe_cast)>(
                pick_arg(pe, i), out_views(pick_arg(q, i)...), st);
          },
          pc);
    });
    staged.commit();
    if constexpr (has_out) {
      return first_out(c...);
    } else {
      using Arr = typename decltype(res)::value_type;
      static_assert(arg_traits<Arr>::is_array,
                    "ufunc: functions with several outputs are not supported on sharded arrays");
      return sharded_access::assemble(p.devices, std::move(res), p.global_rows);
    }
  }

  /// f(args...) with sharded operands: f on every shard (sharded_array.hpp).
  template <class Target, class F, class... Args>
  static decltype(auto) call(const vectorized<Target, F>& f, Args&&... args) {
    (check_sharded_arg<Args>(), ...);
    constexpr bool has_out = (is_out<bare_t<Args>>::value || ...);
    const sharded_plan p = plan_sharded(f.name(), args...);
    check_devices<Target>(p.devices, f.name());
    refuse_ring(p, f.name(), args...);
    agree_across_ranks(p, f.name(), args...);
    return across_ranks(p.devices, f.name(), [&]() -> decltype(auto) { return call_here<has_out>(p, f, args...); });
  }

  template <bool has_out, class Target, class F, class... Args>
  static decltype(auto) call_here(const sharded_plan& p, const vectorized<Target, F>& f, Args&&... args) {
    const std::vector<int>& ids = p.devices.ids();
    auto prep = std::make_tuple(prepare_arg(args, ids)...);
    staged_outputs staged;
    auto res = for_each_shard<Target>(ids, [&](int i, stream_ref st) {
      const staging_scope scope(stages_out<Target>(has_out) ? &staged : nullptr);
      return std::apply([&](auto&... q) { return f(pick_arg(q, i)..., st); }, prep);
    });
    staged.commit();
    if constexpr (has_out) {
      return first_out(args...);
    } else {
      using Arr = typename decltype(res)::value_type;
      static_assert(arg_traits<Arr>::is_array,
                    "ufunc: functions with several outputs are not supported on sharded arrays");
      return sharded_access::assemble(p.devices, std::move(res), p.global_rows);
    }
  }

  /// r(args...) with sharded inputs: each shard reduced on its device; partials
  /// across axis 0 combined (combine_partials). The result is the unsharded
  /// call's: an empty reduced range gives the identity or the initial value
  /// (value_error without one, even for an empty result, checked before any
  /// work); a reduced range only empty on some shards (0-row shards) leaves
  /// those out; a mean sums in its accumulator type and divides once by the
  /// global count.
  ///
  /// The call's controls (axis or axes, keepdims, out, unsafe_cast) are read
  /// here, once, into run-time values; what runs the reduction is instantiated
  /// per reducer and input types alone (sharded_ops<In...>::reduce_inputs,
  /// reduce_into_inputs), and every shard is reduced through one call form
  /// (shard_reduce): `sum(x, axis(0))`, `sum(x, axes{0, 1})`, `sum(x, keepdims)`
  /// and `sum(x, axes(v), keepdims)` share one instantiation of the engine; a
  /// whole reduction (no axes, no keepdims: a host value) is the other one.
  template <class R, class... Args>
  static decltype(auto) reduce(const R& r, Args&&... args) {
    (check_sharded_arg<Args>(), ...);
    if constexpr ((is_out<bare_t<Args>>::value || ...))
      return reduce_into(r, args...);
    else
      return reduce_new(r, args...);
  }

  /// The reduction of the inputs `in` (no controls among them) with the run-time
  /// controls `o`: a host value (Scalar: no axes, no keepdims) or a sharded array.
  template <bool Scalar, class R, class... In>
  static auto reduce_inputs(const R& r, const controls& o, const In&... in) {
    using Target = typename sharded_target<In...>::type;
    const sharded_plan p = plan_sharded(r.name(), in...);
    check_devices<Target>(p.devices, r.name());
    if constexpr (is_arg_kind<typename reducer_parts<R>::kind>::value)
      return reduce_arg<Scalar>(p, o, r, in...);
    else
      return reduce_values<Scalar>(p, o, r, in...);
  }

  /// r(args..., out(y)[, unsafe_cast]) with sharded inputs: checked first (y's
  /// shape, sharding and element type; across processes every rank's check is
  /// exchanged before any collective), then the reduction runs as without out and
  /// its result is written into y only once it is complete on every rank, so a
  /// failure anywhere leaves y untouched. Axis 0 kept (the result sharded like the
  /// input): y is a sharded array over the same devices with the same rows. Axis
  /// 0 reduced (or every axis): y is a plain array (on any device of the target;
  /// across processes each rank passes its own and every rank's gets the result).
  /// Returns y (the sharded array, or the plain out's view).
  template <class R, class... Args>
  static decltype(auto) reduce_into(const R& r, const Args&... args) {
    using parts = reducer_parts<R>;
    static_assert(!is_arg_kind<typename parts::kind>::value,
                  "ufunc: argmin/argmax of sharded arrays take no out(...): they return the indices");
    const auto& o = find_out(args...);
    static_assert(std::tuple_size_v<std::decay_t<decltype(o.views)>> == 1,
                  "ufunc reduction: out(...) takes one array (a reduction has one result)");
    constexpr bool unsafe = (std::is_same_v<bare_t<Args>, unsafe_cast_t> || ...);
    const controls ctl = read_controls(args...);
    return with_inputs<inputs_count<Args...>()>(
        [&](const auto&... in) -> decltype(auto) {
          return sharded_ops<bare_t<decltype(in)>...>::template reduce_into_inputs<unsafe>(r, ctl, std::get<0>(o.views),
                                                                                            in...);
        },
        args...);
  }

  /// reduce_into for the inputs `in` with the run-time controls `ctl`, into `v`
  /// (out(y)'s view: a sharded_out, or a plain view).
  template <bool Unsafe, class R, class V, class... In>
  static decltype(auto) reduce_into_inputs(const R& r, const controls& ctl, V v, const In&... in) {
    using Target = typename sharded_target<In...>::type;
    constexpr bool sharded_v = is_sharded_out<V>::value;
    const sharded_plan p = plan_sharded(r.name(), in...);
    std::vector<int> all_axes;
    for (int d = 0; d < p.rank; ++d) all_axes.push_back(d);
    // The call without out and unsafe_cast, given every axis when it names none
    // (a whole reduction into out: its 0-d result).
    controls c = ctl;
    c.unsafe_cast = false;
    if (!c.has_axes) {
      c.has_axes = true;
      c.single_axis = false;
      c.axes_list = all_axes;
    }
    using Result = decltype(reduce_inputs<false>(r, c, in...));  // (unevaluated)
    using Res = typename Result::value_type;
    std::exception_ptr err;
    try {
      check_devices<Target>(p.devices, r.name());
      const auto mask = axis_mask(p.bshape, ctl.has_axes ? ctl.axes_or_null() : &all_axes, r.name(), ctl.single_axis);
      const shape want(reduced_shape_of(p, mask, ctl.keepdims).dims);
      if constexpr (sharded_v) {
        using O = typename std::remove_pointer_t<decltype(v.array)>::value_type;
        check_out_cast<Res, O>(r.name(), Unsafe);
        const auto& y = *v.array;
        if (mask[0])
          throw shape_error(std::string(r.name()) + ": the result over axis 0 is one array of shape " + want.str() +
                            ", not sharded: give a plain array as out (the " + y.sharding() + " is sharded)");
        if (y.devices() != p.devices || y.rows() != p.rows || y.global_rows() != p.global_rows || y.shape() != want)
          throw shape_error(std::string(r.name()) + ": the sharded out must have the result's shape " + want.str() +
                            " and the input's rows on the same devices, but it is the " + y.sharding());
      } else {
        using O = typename V::value_type;
        check_out_cast<Res, O>(r.name(), Unsafe);
        if (!mask[0])
          throw shape_error(std::string(r.name()) + ": the result keeps axis 0 and stays sharded like the input: give a "
                            "sharded array of shape " + want.str() + " as out");
        if (v.shape() != want)
          throw shape_error(std::string(r.name()) + ": out has shape " + v.shape().str() + " but the result has shape " +
                            want.str());
      }
    } catch (...) {
      err = std::current_exception();
    }
    if (p.devices.spans_processes())
      rank_status(p.devices, r.name(), err);  // a rank's bad out stops every rank before any collective
    else if (err)
      std::rethrow_exception(err);
    Result res = reduce_inputs<false>(r, c, in...);
    auto write = [&](const array<Res, Target>& src, auto dst, int dev) {  // src on dev; dst on dev (or host memory)
      device_guard<Target> g(dev);
      const stream_ref st = shard_stream<Target>(dev);
      if constexpr (Unsafe)
        vectorized<Target, out_copy_fn>(out_copy_fn{}, r.name())(src, ufunc::out(dst), ufunc::unsafe_cast, st);
      else
        vectorized<Target, out_copy_fn>(out_copy_fn{}, r.name())(src, ufunc::out(dst), st);
    };
    const std::vector<int>& ids = p.devices.ids();
    if constexpr (sharded_v) {
      auto& y = *v.array;
      for_each_shard<Target>(ids, [&](int i, stream_ref) {
        write(res.shard(i), y.shard(i).view(), ids[static_cast<std::size_t>(i)]);
        return 0;
      });
      return static_cast<std::remove_pointer_t<decltype(v.array)>&>(y);
    } else {
      auto finish = [&](const array<Res, Target>& src, int dev) {  // src on dev, complete
        write(src, v, dev);
        sync_stream<Target>(shard_stream<Target>(dev));
      };
      if constexpr (is_gpu_target<Target>()) {
        const int yd = device_of<Target>(v.data());
        if (yd >= 0 && yd != ids[0]) {  // another GPU's memory: the result moved there first
          device_guard<Target> g(yd);
          const stream_ref st = shard_stream<Target>(yd);
          array<Res, Target> moved(res.shard(0).shape(), st);
          copy_any<Target>(moved.data(), res.shard(0).data(), static_cast<std::size_t>(moved.size()) * sizeof(Res), st);
          finish(moved, yd);
          return v;
        }
      }
      finish(res.shard(0), ids[0]);  // on the first device, complete
      return v;
    }
  }

  template <class R, class... Args>
  static auto reduce_new(const R& r, const Args&... args) {
    constexpr bool scalar = !((control_of<Args>() == c_axes || control_of<Args>() == c_keepdims) || ...);
    const controls o = read_controls(args...);
    return with_inputs<inputs_count<Args...>()>(
        [&](const auto&... in) {
          return sharded_ops<bare_t<decltype(in)>...>::template reduce_inputs<scalar>(r, o, in...);
        },
        args...);
  }

  /// argmin/argmax(args...) with a sharded input: along an axis other than 0,
  /// each shard's result (sharded like the input); over axis 0 or the whole
  /// array, each shard's (value, index) partial (arg_partial_kind, as the
  /// streamed argmin/argmax computes per chunk), its indices moved to the
  /// global flattened reduced index space (arg_shift_fn: the shard's first row
  /// times the reduced elements after axis 0), then combined as any partials
  /// are (combine_partials, fold_across_ranks) with arg_pick, a total order (the
  /// first NaN, else the value, then the index): the unsharded call's index for
  /// any split. The result: an index (whole), or an array of indices on the
  /// first device (over axis 0).
  template <bool Scalar, class R, class... In>
  static auto reduce_arg(const sharded_plan& p, const controls& o, const R& r, const In&... args) {
    using parts = reducer_parts<R>;
    constexpr bool is_max = std::is_same_v<typename parts::kind, arg_kind<true>>;
    using Target = typename sharded_target<In...>::type;
    const auto mask = mask_or_disagree(p, o, r.name(), [&] {
      if (o.has_axes && o.axes_list.size() != 1)
        throw shape_error(std::string(r.name()) + ": give one axis (or none), not " + axes_str(o.axes_or_null()));
      check_ring_reduction(p, axis_mask(p.bshape, o.axes_or_null(), r.name(), o.single_axis), r.name(), true);
    }, args...);
    constexpr bool scalar = Scalar;
    const reduced_shape rs = reduced_shape_of(p, mask, o.keepdims);
    if (p.devices.spans_processes()) {  // first: ranks whose shapes differ must not throw alone below
      std::string what = std::string(r.name()) + (o.has_axes ? " over axis " + std::to_string(o.axes_list[0]) : "");
      agree_across_ranks(p, what + (o.keepdims ? " keepdims" : ""), args...);
    }
    if (rs.red_count == 0)
      throw value_error(std::string(r.name()) + ": zero-size reduction of shape " + p.bshape.str() + " over axes " +
                        axes_str(o.axes_or_null()) + ", and the operation has no identity (give an initial value)");
    const std::vector<int>& ids = p.devices.ids();
    const shard_axes sa = shard_axes_of<scalar>(p, o);
    if constexpr (!scalar && may_ring<In...>) {
      if (p.ring_axis >= 0)  // y operands along the one reduced axis (check_ring_reduction): block by block
        return reduce_arg_ring<is_max>(p, sa, r, args...);
    }
    auto prep = std::make_tuple(prepare_arg(args, ids)...);
    if constexpr (!scalar) {
      if (!mask[0])  // along another axis: every shard's indices stay on its device
        return across_ranks(p.devices, r.name(), [&] {
          auto res = for_each_shard<Target>(ids, [&](int i, stream_ref st) {
            return shard_reduce<false>(r, prep, i, st, sa);
          });
          return sharded_access::assemble(p.devices, std::move(res), p.global_rows);
        });
    }
    const reducer<typename parts::acc_override, typename parts::map, typename parts::op, no_init,
                  arg_partial_kind<is_max>>
        partial_r(r.map_fn(), r.op_fn(), no_init{}, r.name());
    auto run_partial = [&](int i, stream_ref st) { return shard_reduce<scalar>(partial_r, prep, i, st, sa); };
    using Part = decltype(run_partial(0, stream_ref()));
    using Acc = typename Part::value_type;  // arg_acc<M>
    using Pick = arg_pick<decltype(Acc::v), is_max>;
    // The first position of shard i in the flattened reduced index space.
    index_t after0 = 1;
    for (int d = 1; d < p.rank; ++d)
      if (mask[static_cast<std::size_t>(d)]) after0 *= p.bshape[d];
    std::vector<index_t> first_rows = row_offsets(p.rows);
    if (p.devices.spans_processes())
      for (int q = 0; q < p.devices.rank(); ++q)
        for (auto& f : first_rows) f += p.global_rows[static_cast<std::size_t>(q)];
    std::vector<int> live;
    for (std::size_t i = 0; i < p.rows.size(); ++i)
      if (p.rows[i] > 0) live.push_back(static_cast<int>(i));
    auto local_part = [&](bool wait) {
      return combine_local<Target, Pick, Acc>(live, ids, Pick{}, r.name(), [&](int i, stream_ref st) {
        Part a = run_partial(i, st);
        const arg_shift_fn shift{first_rows[static_cast<std::size_t>(i)] * after0};
        flat_call<Target, arg_shift_fn>{shift}.into(a, st);
        return a;
      }, wait);
    };
    Part out = p.devices.spans_processes()
                   ? fold_across_ranks<Target, Acc>(p.devices, r.name(), local_part, Pick{},
                                                    scalar ? shape() : shape(rs.dims), [] {})
                   : std::move(*local_part(true));
    device_guard<Target> g(ids[0]);
    if constexpr (scalar) {
      return finish_index{}(out.to_host()[0]);
    } else {
      const stream_ref s0 = shard_stream<Target>(ids[0]);
      using fin_t = finish_fn<finish_index>;
      auto idx = flat_call<Target, fin_t>{fin_t{finish_index{}}}.make(out, s0);
      sync_stream<Target>(s0);
      std::vector<decltype(idx)> v;
      v.push_back(std::move(idx));
      return sharded_access::assemble(device_set{ids[0]}, std::move(v));
    }
  }

  /// argmin/argmax over the axis the y operands are sharded along: each shard's
  /// (value, index) partial against one y block at a time (arg_partial_kind),
  /// its indices moved by the block's first position (the block's global j
  /// offset: the call reduces that axis alone), folded in block order with
  /// arg_pick (ties to the lower j, the first NaN), then the indices taken.
  /// The result is sharded like the x operands.
  template <bool IsMax, class R, class... In>
  static auto reduce_arg_ring(const sharded_plan& p, const shard_axes& sa, const R& r, const In&... args) {
    using parts = reducer_parts<R>;
    using Target = typename sharded_target<In...>::type;
    const std::vector<int>& ids = p.devices.ids();
    std::vector<std::shared_ptr<ring_slot_base>> slots;
    auto prep = std::make_tuple(prepare_ring(args, ids, p.rank, slots)...);
    ring_run<Target> run(p.devices, p.ring_rows, slots);
    const reducer<typename parts::acc_override, typename parts::map, typename parts::op, no_init,
                  arg_partial_kind<IsMax>>
        partial_r(r.map_fn(), r.op_fn(), no_init{}, r.name());
    using Part = decltype(shard_reduce<false>(partial_r, prep, 0, stream_ref(), sa));
    using Acc = typename Part::value_type;  // arg_acc<M>
    using Pick = arg_pick<decltype(Acc::v), IsMax>;
    using fold_t = fold_fn<acc_op<Acc, Pick>>;
    const flat_call<Target, fold_t> fold{fold_t{acc_op<Acc, Pick>{Pick{}}}};
    return across_ranks(p.devices, r.name(), [&] {
      const std::vector<bool> every(ids.size(), true);
      auto acc = ring_fold<Target, Part>(run, p.devices, every, [&](int i, const ring_block& b, bool, stream_ref st) {
        Part a = shard_reduce<false>(partial_r, prep, i, st, sa);
        flat_call<Target, arg_shift_fn>{arg_shift_fn{b.first}}.into(a, st);
        return a;
      }, fold);
      using fin_t = finish_fn<finish_index>;
      auto res = for_each_shard<Target>(ids, [&](int i, stream_ref st) {
        return flat_call<Target, fin_t>{fin_t{finish_index{}}}.make(*acc[static_cast<std::size_t>(i)], st);
      });
      return sharded_access::assemble(p.devices, std::move(res), p.global_rows);
    });
  }

  template <bool Scalar, class R, class... In>
  static auto reduce_values(const sharded_plan& p, const controls& o, const R& r, const In&... args) {
    using parts = reducer_parts<R>;
    constexpr bool is_mean = std::is_same_v<typename parts::kind, mean_kind>;
    using Target = typename sharded_target<In...>::type;
    const auto mask = mask_or_disagree(p, o, r.name(), [&] {
      check_ring_reduction(p, axis_mask(p.bshape, o.axes_or_null(), r.name(), o.single_axis), r.name(), false);
    }, args...);
    constexpr bool scalar = Scalar;
    const std::vector<int>& ids = p.devices.ids();
    const shard_axes sa = shard_axes_of<scalar>(p, o);
    // The global reduced count and kept count (the unsharded call's g.R, g.K) and
    // the result's shape.
    const reduced_shape rs = reduced_shape_of(p, mask, o.keepdims);
    const index_t red_count = rs.red_count, kept_count = rs.kept_count;
    const std::vector<index_t>& result_dims = rs.dims;
    // Partials after the first: no initial value (it applies once). A mean's
    // partials: sums in its accumulator type (Res below), divided at the end.
    const reducer<typename parts::acc_override, typename parts::map, typename parts::op, no_init, plain_kind> rest(
        r.map_fn(), r.op_fn(), no_init{}, r.name());
    auto shard_call = [&](const auto& red, auto& prepared, int i, stream_ref st) {
      return shard_reduce<scalar>(red, prepared, i, st, sa);
    };
    using Prep = decltype(std::make_tuple(prepare_arg(args, ids)...));
    using Arr = decltype(shard_call(r, std::declval<Prep&>(), 0, stream_ref()));
    using Res = typename Arr::value_type;
    // As run() in reduce.hpp (plain and mean kinds accumulate in Res).
    using UsedOp = std::conditional_t<is_mean, plus, typename parts::op>;
    using Init = typename parts::init;
    constexpr bool has_init = !std::is_same_v<Init, no_init> &&
                              (!std::is_same_v<Init, default_init> || has_identity<UsedOp, Res>::value);
    const bool multi = p.devices.spans_processes();
    // Across processes the ranks agree on the call before any collective of it:
    // here before the special cases below, and in the main path while this rank's
    // partial computes (it writes only its own temporary, freed if they disagree).
    std::string what;
    if (multi) {
      what = std::string(r.name()) + " over axes {";
      for (int d = 0; d < p.rank; ++d)
        if (mask[static_cast<std::size_t>(d)]) what += std::to_string(d) + ",";
      what += o.keepdims ? "} keepdims" : "}";
    }
    // y operands (sharded along the reduced axis p.ring_axis) travel block by
    // block (ring_fold) where there is something to reduce and a result to
    // hold; otherwise (an empty range or result) each shard's own block gives
    // the result's shape and its identity or initial value, as below.
    // (Inputs with one sharded array among them have none: may_ring.)
    const bool ring = may_ring<In...> && p.ring_axis >= 0 && red_count > 0 && (!mask[0] || kept_count > 0);
    auto agree = [&] { agree_across_ranks(p, what, args...); };
    auto agree_later = [&] {  // (a ring's exchange is made first: its blocks' broadcasts are collectives of the call)
      if (!ring) agree();
    };
    const bool special = (!scalar && (!mask[0] || kept_count == 0)) || red_count == 0 || ring;
    if (multi && special) agree();  // (also before the check below: a rank whose shape differs must not throw alone)
    if (red_count == 0 && !has_init)  // the unsharded call's check and message, on the global shape
      throw value_error(std::string(r.name()) + ": zero-size reduction of shape " + p.bshape.str() + " over axes " +
                        axes_str(o.axes_or_null()) + ", and the operation has no identity (give an initial value)");
    // Only now (every check made) plain operands are replicated to the devices;
    // with y blocks, every sharded leaf becomes a view the ring points (ring.hpp).
    std::optional<Prep> prep;
    std::vector<std::shared_ptr<ring_slot_base>> slots;
    using RingPrep = typename ring_prep<may_ring<In...>, In...>::type;
    std::optional<RingPrep> rprep;
    if constexpr (may_ring<In...>) {
      if (ring) rprep.emplace(std::make_tuple(prepare_ring(args, ids, p.rank, slots)...));
    }
    if (!ring) prep.emplace(std::make_tuple(prepare_arg(args, ids)...));
    ring_run<Target> run(p.devices, p.ring_rows, slots);
    auto run_shard = [&](const auto& red, int i, stream_ref st) { return shard_call(red, *prep, i, st); };
    // The result across axis 0: on the first device, as a host value (a whole
    // reduction) or a sharded_array of one shard there.
    auto across = [&](Arr&& x) {
      if constexpr (scalar) {
        device_guard<Target> g(ids[0]);
        return static_cast<Res>(x.to_host()[0]);
      } else {
        std::vector<Arr> v;
        v.push_back(std::move(x));
        return sharded_access::assemble(device_set{ids[0]}, std::move(v));
      }
    };
    const reducer<Res, typename parts::map, plus, default_init, plain_kind> mean_sum(r.map_fn(), plus{}, default_init{},
                                                                                    r.name());
    const UsedOp used_op = [&] {
      if constexpr (is_mean) return plus{};
      else return r.op_fn();
    }();
    using fold_t = fold_fn<acc_op<Res, UsedOp>>;
    const flat_call<Target, fold_t> fold{fold_t{acc_op<Res, UsedOp>{used_op}}};
    // Shard i's reduction against one y block: the initial value with the first
    // block of the outputs it belongs to (init_for), a mean's sums in Res.
    auto ring_compute = [&](auto&& init_for) {
      return [&, init_for](int i, const ring_block&, bool first, stream_ref st) -> Arr {
        if constexpr (!may_ring<In...>) return (void)i, (void)first, (void)st, Arr();  // (not called: no ring)
        else if constexpr (is_mean) return shard_call(mean_sum, *rprep, i, st);
        else return first && init_for(i) ? shard_call(r, *rprep, i, st) : shard_call(rest, *rprep, i, st);
      };
    };
    if constexpr (!scalar && may_ring<In...>) {
      if (!mask[0] && ring) {  // axis 0 kept: each shard's outputs over every y block, in block order
        return across_ranks(p.devices, r.name(), [&] {
          const std::vector<bool> every(ids.size(), true);
          auto acc = ring_fold<Target, Arr>(run, p.devices, every, ring_compute([](int) { return true; }), fold);
          std::vector<Arr> res;
          for (std::size_t i = 0; i < acc.size(); ++i) res.push_back(std::move(*acc[i]));
          if constexpr (is_mean) {  // the division once, by the global count
            using fin_t = finish_fn<finish_mean<Res>>;
            const flat_call<Target, fin_t> fin{fin_t{finish_mean<Res>{red_count}}};
            for_each_shard<Target>(ids, [&](int i, stream_ref st) {
              fin.into(res[static_cast<std::size_t>(i)], st);
              return 0;
            });
          }
          return sharded_access::assemble(p.devices, std::move(res), p.global_rows);
        });
      }
    }
    if constexpr (!scalar) {
      if (!mask[0]) {  // axis 0 kept: every shard's rows of the result stay on its device
        return across_ranks(p.devices, r.name(), [&] {
          auto res = for_each_shard<Target>(ids, [&](int i, stream_ref st) { return run_shard(r, i, st); });
          return sharded_access::assemble(p.devices, std::move(res), p.global_rows);
        });
      }
      if (kept_count == 0) {  // an empty result (the reduced range is not): nothing to compute
        return across_ranks(p.devices, r.name(), [&] {
          auto res = for_each_shard<Target>(std::vector<int>{ids[0]},
                                            [&](int, stream_ref st) { return Arr(shape(result_dims), st); });
          return across(std::move(res[0]));
        });
      }
    }
    if (red_count == 0) {  // no element anywhere: shard 0 gives the identity or initial value (a mean's NaN)
      return across_ranks(p.devices, r.name(), [&] {
        auto res =
            for_each_shard<Target>(std::vector<int>{ids[0]}, [&](int, stream_ref st) { return run_shard(r, 0, st); });
        return across(std::move(res[0]));
      });
    }
    // Every shard with rows has a non-empty reduced range (red_count > 0).
    std::vector<int> live;
    for (std::size_t i = 0; i < p.rows.size(); ++i)
      if (p.rows[i] > 0) live.push_back(static_cast<int>(i));
    // The initial value once: on the first shard with rows of the whole array
    // (across processes, of the first rank with rows).
    bool init_here = true;
    if (multi)
      for (std::size_t g = 0; g < p.global_rows.size(); ++g)
        if (p.global_rows[g] > 0) {
          init_here = static_cast<int>(g) == p.devices.rank();
          break;
        }
    // With y blocks: each shard with rows over every block (ring_fold), first
    // (across processes inside local_part: every rank takes part in the blocks'
    // broadcasts, with rows or not), then combined as the partials below are.
    std::vector<std::optional<Arr>> ringed;
    auto ring_all = [&] {
      if constexpr (may_ring<In...>) {
        std::vector<bool> has(ids.size());
        for (std::size_t i = 0; i < has.size(); ++i) has[i] = p.rows[i] > 0;
        ringed = ring_fold<Target, Arr>(run, p.devices, has,
                                        ring_compute([&](int i) { return i == live[0] && init_here; }), fold);
      }
    };
    if (ring && !multi) ring_all();
    // This process's shards combined (none across processes on a rank without rows).
    auto make_partial = [&](int i, stream_ref st) -> Arr {
      if (ring) return std::move(*ringed[static_cast<std::size_t>(i)]);
      if constexpr (is_mean) return run_shard(mean_sum, i, st);
      else return i == live[0] && init_here ? run_shard(r, i, st) : run_shard(rest, i, st);  // the initial value once
    };
    auto local_part = [&](bool wait) {
      if (ring && multi) ring_all();
      return combine_local<Target, UsedOp, Res>(live, ids, used_op, r.name(), make_partial, wait);
    };
    if constexpr (scalar && host_foldable<Target, UsedOp, Res>()) {
      // A whole reduction: every shard's value to the host (deferred, no
      // partial array), folded there (and across processes, over the ranks).
      auto make_value = [&](int i, stream_ref st, deferred_value& dv) -> Res {
        if (ring) {  // (the ring's 0-d fold, read back and freed)
          auto& part = ringed[static_cast<std::size_t>(i)];
          Res v{};
          memory<Target>::copy_to_host(&v, part->data(), sizeof(Res), st);
          part.reset();
          return v;
        }
        if constexpr (is_mean) return static_cast<Res>(shard_value(mean_sum, *prep, i, st, dv));
        else if (i == live[0] && init_here) return static_cast<Res>(shard_value(r, *prep, i, st, dv));  // the initial value once
        else return static_cast<Res>(shard_value(rest, *prep, i, st, dv));
      };
      auto start = [&] {
        if (ring && multi) ring_all();
      };
      const Res v = fold_shard_values<Target, Res>(p.devices, ids, live, used_op, r.name(), start, make_value,
                                                   [&] { if (multi) agree_later(); });
      if constexpr (is_mean) return finish_fn<finish_mean<Res>>{finish_mean<Res>{red_count}}(v);
      else return v;
    }
    {
      Arr out = multi ? fold_across_ranks<Target, Res>(p.devices, r.name(), local_part, used_op,
                                                       scalar ? shape() : shape(result_dims), agree_later)
                      : std::move(*local_part(true));
      if constexpr (is_mean) {  // the division once, by the global count (as finish_mean on one device)
        using fin_t = finish_fn<finish_mean<Res>>;
        const fin_t fin{finish_mean<Res>{red_count}};
        if constexpr (scalar) {
          device_guard<Target> g(ids[0]);
          return fin(out.to_host()[0]);
        } else {
          const stream_ref s0 = shard_stream<Target>(ids[0]);
          device_guard<Target> g(ids[0]);
          flat_call<Target, fin_t>{fin}.into(out, s0);
          sync_stream<Target>(s0);
          return across(std::move(out));
        }
      } else {
        return across(std::move(out));
      }
    }
  }

 private:
  /// The number of a call's inputs (its arguments before the first control).
  template <class... Args>
  static constexpr std::size_t inputs_count() {
    return call_args<~0u, bare_t<Args>...>::nin;
  }
  /// fn(the first N of args): a call's inputs, without its controls.
  template <std::size_t N, class Fn, class... Args>
  static decltype(auto) with_inputs(Fn&& fn, const Args&... args) {
    return apply_first(std::make_index_sequence<N>{}, fn, std::forward_as_tuple(args...));
  }
  template <std::size_t... I, class Fn, class Tup>
  static decltype(auto) apply_first(std::index_sequence<I...>, Fn& fn, const Tup& t) {
    return fn(std::get<I>(t)...);
  }
  template <class Arg, class... Rest>
  static const auto& find_out(const Arg& a, const Rest&... rest) {
    if constexpr (is_out<bare_t<Arg>>::value)
      return a;
    else
      return find_out(rest...);
  }
  /// The sharded array of a call's first out(...).
  template <class... Args>
  static decltype(auto) first_out(const Args&... a) {
    return *std::get<0>(find_out(a...).views).array;
  }
  /// Shard i's reduction with `red` of the prepared operands, over `sa`'s axes
  /// (one call form for every spelling of the call's controls); a whole
  /// reduction (Scalar) as a 0-d array over every axis, on the device (no host
  /// round trip per device: the partials are combined there).
  /// Shard i's whole reduction with `red` to a host value, deferred where the
  /// backend can (defer_to: `d.slot` then names where the value will be once
  /// the shard's stream is synchronised; the returned value is a placeholder).
  template <class Red, class Prep>
  static auto shard_value(const Red& red, Prep& prepared, int i, stream_ref st, deferred_value& d) {
    return std::apply([&](auto&... q) { return red(pick_arg(q, i)..., st, defer_to{&d}); }, prepared);
  }
  template <bool Scalar, class Red, class Prep>
  static auto shard_reduce(const Red& red, Prep& prepared, int i, stream_ref st, const shard_axes& sa) {
    return std::apply(
        [&](auto&... q) {
          if constexpr (Scalar)
            return red(pick_arg(q, i)..., ufunc::axes(sa.axes), st);
          else if (sa.keepdims)
            return red(pick_arg(q, i)..., ufunc::axes(sa.axes), ufunc::keepdims, st);
          else
            return red(pick_arg(q, i)..., ufunc::axes(sa.axes), st);
        },
        prepared);
  }
};

}  // namespace ufunc::detail
