// Operations on sharded arrays (sharded_array.hpp): the factories (`shard`,
// `empty`/`zeros`/`full` over a device_set), elementwise calls, reductions and
// matmul, each run as the ordinary operation on every shard at once, one
// stream per device, with NCCL combining partial results and broadcasting
// replicated operands across GPUs (detail/cuda/nccl.hpp).
//
// Every sharded operation checks all its inputs (device sets, shapes,
// shardings) before it enqueues anything on any device, enqueues every
// device's work, then waits for all of them: it returns when the result is
// complete, and a failure on one device (out_of_memory, cuda_error,
// nccl_error) is thrown after every device's work has drained, with the
// partial results freed and the input shards untouched. On host shards an
// exception from the function in any shard leaves every shard of a sharded
// out untouched: the shards' copies into out are staged (detail/staged_out.hpp)
// and made only once every shard succeeded.
#pragma once

#include <exception>
#include <functional>
#include <memory>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "array.hpp"
#include "array_view.hpp"
#include "axis.hpp"
#include "config.hpp"
#include "detail/call.hpp"
#include "detail/sharded.hpp"
#include "detail/staged_out.hpp"
#include "error.hpp"
#include "full.hpp"
#include "lazy.hpp"
#include "matmul.hpp"
#include "ops.hpp"
#include "out.hpp"
#include "reduce.hpp"
#include "shape.hpp"
#include "sharded_array.hpp"
#include "stream.hpp"
#include "vectorize.hpp"

#include "sharded/engine.hpp"  // the sharded wing: what the operations below run on

namespace ufunc {

/// True in CUDA builds linked with NCCL: sharded arrays may span several GPUs.
inline constexpr bool have_nccl = detail::collectives<target::device>::available;

// ---- lazy expressions over sharded arrays ------------------------------------

/// A lazy expression over sharded arrays: `f.lazy(x, ...)`, `ufunc::lazy(x)` or
/// a C++ operator with a sharded array `x` among the operands (alike sharded
/// arrays, scalars, named plain arrays that broadcast against a shard, other
/// sharded expressions). Nothing runs when it is built; shapes and shardings
/// are checked then (shape_error naming the function; a sharded operand of a
/// lower rank, the y_j of a pairwise reduction sharded along another axis of
/// the call, when the expression is used: sharded/ring.hpp). `ufunc::evaluate(e)`
/// (or `evaluate(e, ufunc::out(y))` with y sharded alike), an eager call or a
/// reduction given `e` builds shard i's ordinary expression on device i and
/// runs it there: one fused kernel per shard, no intermediate arrays. Named
/// sharded and plain arrays are held by reference and must outlive the
/// evaluations; rvalue sharded arrays are owned by the expression.
template <class Maker, class... A>
class sharded_expression {
 public:
  using maker_type = Maker;
  using target_type = typename detail::sharded_target<A...>::type;

  sharded_expression(Maker m, const char* name, A... args)
      : maker_(std::move(m)), name_(name), args_(std::move(args)...) {
    shape_ = std::apply([&](const auto&... x) { return detail::plan_sharded(name_, x...); }, args_).bshape;
  }
  /// The global shape of the result.
  const ufunc::shape& shape() const noexcept { return shape_; }
  const char* name() const noexcept { return name_; }
  const Maker& maker() const noexcept { return maker_; }
  const std::tuple<A...>& args() const noexcept { return args_; }

 private:
  Maker maker_;
  const char* name_;
  std::tuple<A...> args_;
  ufunc::shape shape_;
};

/// Evaluates a sharded expression: a new sharded_array sharded like its
/// operands, or written into `ufunc::out(y)` (y sharded alike, of the
/// expression's shape; returned). Also `ufunc::unsafe_cast`; no stream (each
/// device runs on its sharded stream). Returns when every device is done.
template <class E, class... C, std::enable_if_t<detail::is_sharded_expr<detail::bare_t<E>>::value, int> = 0>
decltype(auto) evaluate(const E& e, C&&... c) {
  using parsed = detail::call_args<detail::c_out | detail::c_unsafe_cast, detail::bare_t<C>...>;
  UFUNC_CHECK_TRAILING(parsed, "ufunc::evaluate of a sharded expression",
                       "ufunc::out(...) of sharded arrays and ufunc::unsafe_cast (no stream)");
  return detail::sharded_ops<detail::bare_t<E>>::evaluate(e, std::forward<C>(c)...);
}

/// A sharded array as a leaf expression (`ufunc::lazy(x) * 2.0f + y`); a
/// sharded expression is returned as it is.
template <class A, std::enable_if_t<detail::is_sharded_operand_v<A> && !detail::is_sharded_vec<detail::bare_t<A>>::value,
                                    int> = 0>
auto lazy(A&& x) {
  if constexpr (detail::is_sharded_expr<detail::bare_t<A>>::value)
    return detail::bare_t<A>(std::forward<A>(x));
  else
    return detail::sharded_node(detail::leaf_maker{}, "lazy", std::forward<A>(x));
}

/// The C++ operators with a sharded operand and an expression among their
/// operands: a sharded expression node.
template <class A, class B, std::enable_if_t<detail::sharded_operator_args<A, B>, int> = 0>
auto operator+(A&& a, B&& b) {
  return detail::sharded_node(detail::node_maker<detail::expr_add>{"operator+"}, "operator+", std::forward<A>(a),
                              std::forward<B>(b));
}
template <class A, class B, std::enable_if_t<detail::sharded_operator_args<A, B>, int> = 0>
auto operator-(A&& a, B&& b) {
  return detail::sharded_node(detail::node_maker<detail::expr_sub>{"operator-"}, "operator-", std::forward<A>(a),
                              std::forward<B>(b));
}
template <class A, class B, std::enable_if_t<detail::sharded_operator_args<A, B>, int> = 0>
auto operator*(A&& a, B&& b) {
  return detail::sharded_node(detail::node_maker<detail::expr_mul>{"operator*"}, "operator*", std::forward<A>(a),
                              std::forward<B>(b));
}
template <class A, class B, std::enable_if_t<detail::sharded_operator_args<A, B>, int> = 0>
auto operator/(A&& a, B&& b) {
  return detail::sharded_node(detail::node_maker<detail::expr_div>{"operator/"}, "operator/", std::forward<A>(a),
                              std::forward<B>(b));
}
template <class A, std::enable_if_t<detail::is_sharded_expr<detail::bare_t<A>>::value, int> = 0>
auto operator-(A&& a) {
  return detail::sharded_node(detail::node_maker<detail::expr_neg>{"operator-"}, "operator-", std::forward<A>(a));
}

// ---- factories ---------------------------------------------------------------

/// An uninitialised sharded array of global shape `s` (rank >= 1) over `d`,
/// rows split as evenly as possible (the first N % D shards one row more; over
/// a set spanning processes, D is the number of ranks and each rank allocates
/// its own rows: collective, every rank passes the same shape).
template <class T, class Target = target::device>
sharded_array<T, Target> empty(const shape& s, const device_set& d) {
  if (s.size() < 1) throw shape_error("ufunc::empty: a sharded array has rank >= 1, not shape " + s.str());
  detail::check_devices<Target>(d, "ufunc::empty");
  if (d.spans_processes()) {
    const detail::sharded_plan p = detail::factory_plan(d, s, "ufunc::empty");
    return detail::across_ranks(d, "ufunc::empty", [&] {
      auto res = detail::for_each_shard<Target>(d.ids(), [&](int, stream_ref st) {
        return array<T, Target>(detail::with_rows(s, p.global_rows[static_cast<std::size_t>(d.rank())]), st);
      });
      return detail::sharded_access::assemble(d, std::move(res), p.global_rows);
    });
  }
  const auto rows = detail::split_rows(s[0], d.size());
  auto res = detail::for_each_shard<Target>(d.ids(), [&](int i, stream_ref st) {
    return array<T, Target>(detail::with_rows(s, rows[static_cast<std::size_t>(i)]), st);
  });
  return detail::sharded_access::assemble(d, std::move(res));
}

/// A sharded array of zeros (all-bits-zero).
template <class T, class Target = target::device>
sharded_array<T, Target> zeros(const shape& s, const device_set& d) {
  auto a = empty<T, Target>(s, d);
  detail::for_each_shard<Target>(d.ids(), [&](int i, stream_ref st) {
    auto& sh = a.shard(i);
    detail::memory<Target>::fill_bytes(sh.data(), 0, static_cast<std::size_t>(sh.size()) * sizeof(T), st);
    return 0;
  });
  return a;
}

/// A sharded array filled with `value`.
template <class T, class Target = target::device>
sharded_array<T, Target> full(const shape& s, T value, const device_set& d) {
  if (s.size() < 1) throw shape_error("ufunc::full: a sharded array has rank >= 1, not shape " + s.str());
  detail::check_devices<Target>(d, "ufunc::full");
  if (d.spans_processes()) {
    const detail::sharded_plan p = detail::factory_plan(d, s, "ufunc::full");
    return detail::across_ranks(d, "ufunc::full", [&] {
      auto res = detail::for_each_shard<Target>(d.ids(), [&](int, stream_ref st) {
        return ufunc::full<T, Target>(detail::with_rows(s, p.global_rows[static_cast<std::size_t>(d.rank())]), value, st);
      });
      return detail::sharded_access::assemble(d, std::move(res), p.global_rows);
    });
  }
  const auto rows = detail::split_rows(s[0], d.size());
  auto res = detail::for_each_shard<Target>(d.ids(), [&](int i, stream_ref st) {
    return ufunc::full<T, Target>(detail::with_rows(s, rows[static_cast<std::size_t>(i)]), value, st);
  });
  return detail::sharded_access::assemble(d, std::move(res));
}

/// Host data (`s.count()` elements, row-major) split over `d`: shard i gets
/// its rows, copied to device i. Over a set spanning processes every rank
/// passes the whole data (each copies its own rows; collective); a rank that
/// holds only its rows makes its shard and calls `sharded_array::from_shards`.
template <class Target = target::device, class T>
sharded_array<T, Target> shard(const T* data, const shape& s, const device_set& d = device_set()) {
  auto a = empty<T, Target>(s, d);
  const index_t row = s.size() > 0 && s[0] > 0 ? s.count() / s[0] : 0;
  const auto off = a.row_offsets();
  detail::for_each_shard<Target>(d.ids(), [&](int i, stream_ref st) {
    auto& sh = a.shard(i);
    detail::memory<Target>::copy_from_host(sh.data(), data + off[static_cast<std::size_t>(i)] * row,
                                           static_cast<std::size_t>(sh.size()) * sizeof(T), st);
    return 0;
  });
  return a;
}
template <class Target = target::device, class T>
sharded_array<T, Target> shard(const std::vector<T>& h, const shape& s, const device_set& d = device_set()) {
  if (s.count() != static_cast<index_t>(h.size()))
    throw shape_error("ufunc::shard: a vector of " + std::to_string(h.size()) + " elements cannot have shape " + s.str());
  return shard<Target>(h.data(), s, d);
}
/// Host data held by rank `root` alone (`s.count()` elements, row-major; the
/// other ranks may pass nullptr) split over a set spanning processes: each rank
/// receives its rows (collective: a scatter; every rank passes the same shape and
/// root). In one process, shard(data, s, d) (root 0).
template <class Target = target::device, class T>
sharded_array<T, Target> shard(const T* data, const shape& s, const device_set& d, int root) {
  if (root < 0 || root >= d.ranks())
    throw value_error("ufunc::shard: root " + std::to_string(root) + " for " + std::to_string(d.ranks()) + " ranks");
  if (!d.spans_processes()) return shard<Target>(data, s, d);
  auto a = empty<T, Target>(s, d);  // the ranks agree on the shape first
  const bool here = d.rank() == root;
  std::exception_ptr err;
  for (int r : d.comm().allgather(root))
    if (r != root && !err)
      err = std::make_exception_ptr(value_error("ufunc::shard: the ranks disagree on the root (" + std::to_string(r) +
                                                " and " + std::to_string(root) + ")"));
  if (here && !data && s.count() > 0 && !err)
    err = std::make_exception_ptr(value_error("ufunc::shard: the root's data is null"));
  detail::rank_status(d, "ufunc::shard", err);
  const index_t row = s[0] > 0 ? s.count() / s[0] : 0;
  const std::size_t per = detail::padded_rank_elements(a.global_rows(), row);
  std::vector<T> all(here ? per * static_cast<std::size_t>(d.ranks()) : 0), mine(per);
  if (here) {  // each rank's rows, padded to the longest
    index_t at = 0;
    for (std::size_t r = 0; r < a.global_rows().size(); ++r) {
      const index_t n = a.global_rows()[r] * row;
      std::copy(data + at, data + at + n, all.begin() + static_cast<std::ptrdiff_t>(r * per));
      at += n;
    }
  }
  d.comm().scatter_bytes(all.data(), per * sizeof(T), mine.data(), root);
  detail::for_each_shard<Target>(d.ids(), [&](int i, stream_ref st) {
    auto& sh = a.shard(i);
    detail::memory<Target>::copy_from_host(sh.data(), mine.data(), static_cast<std::size_t>(sh.size()) * sizeof(T), st);
    return 0;
  });
  return a;
}

/// Across the ranks of `d` (a set spanning processes): x on every rank becomes
/// the root's x, a plain operand given by its owner rank (collective; x
/// contiguous, of one shape and element type on every rank, host or device
/// memory; the call waits for x's device first and returns when x is written).
/// Ranks that disagree on the shape, the element size or the root throw
/// shape_error on every rank, before any data moves. Nothing to do in one process.
template <class T, class Tg>
void broadcast_from(array_view<T, Tg> x, const device_set& d, int root) {
  static_assert(!std::is_const_v<T>, "ufunc::broadcast_from: x is written (a view of non-const elements)");
  if (root < 0 || root >= d.ranks())
    throw value_error("ufunc::broadcast_from: root " + std::to_string(root) + " for " + std::to_string(d.ranks()) +
                      " ranks");
  if (!d.spans_processes()) return;
  if (!x.is_contiguous())
    throw shape_error("ufunc::broadcast_from: x must be contiguous (row-major), not a view of shape " + x.shape().str() +
                      " with other strides");
  detail::sharded_plan p;
  p.devices = d;
  p.bshape = x.shape();
  detail::agree_across_ranks(p, "ufunc::broadcast_from of " + std::to_string(sizeof(T)) + "-byte elements from rank " +
                                    std::to_string(root));
  const std::size_t bytes = static_cast<std::size_t>(x.size()) * sizeof(T);
  if (bytes == 0) return;
  if constexpr (detail::target_traits<Tg>::is_device) {  // staged through host memory, on x's device
    detail::wait_device_of<Tg>(x.data());
    const int dev = detail::device_of<Tg>(x.data());
    std::vector<unsigned char> h(bytes);
    if (d.rank() == root) {
      detail::device_guard<Tg> g(dev < 0 ? detail::runtime<Tg>::current_device() : dev);
      detail::memory<Tg>::copy_to_host(h.data(), x.data(), bytes);
    }
    d.comm().broadcast_bytes(h.data(), bytes, root);
    if (d.rank() != root) {
      detail::device_guard<Tg> g(dev < 0 ? detail::runtime<Tg>::current_device() : dev);
      detail::memory<Tg>::copy_from_host(x.data(), h.data(), bytes);
      detail::runtime<Tg>::device_synchronize();
    }
  } else {
    d.comm().broadcast_bytes(x.data(), bytes, root);
  }
}
template <class T, class Tg>
void broadcast_from(array<T, Tg>& x, const device_set& d, int root) {
  broadcast_from(x.view(), d, root);
}

/// A 1-D host vector split over `d`.
template <class Target = target::device, class T>
sharded_array<T, Target> shard(const std::vector<T>& h, const device_set& d = device_set()) {
  return shard<Target>(h.data(), shape(static_cast<index_t>(h.size())), d);
}
/// An array (or view, any strides) split over `d`: its rows copied to each
/// device (peer copies; the call waits for the array's device first).
template <class A, std::enable_if_t<detail::arg_traits<detail::bare_t<A>>::is_array, int> = 0>
auto shard(const A& x, const device_set& d = device_set()) {
  using T = typename detail::arg_traits<A>::value_type;
  using Target = typename detail::arg_traits<A>::target_type;
  const array_view<const T, Target> v(x);
  if (v.shape().size() < 1) throw shape_error("ufunc::shard: a sharded array has rank >= 1, not shape " + v.shape().str());
  detail::check_devices<Target>(d, "ufunc::shard");
  detail::wait_device_of<Target>(v.data());
  auto a = empty<T, Target>(v.shape(), d);
  const auto off = a.row_offsets();
  detail::for_each_shard<Target>(d.ids(), [&](int i, stream_ref st) {
    auto& sh = a.shard(i);
    const index_t r0 = off[static_cast<std::size_t>(i)], r1 = r0 + a.rows()[static_cast<std::size_t>(i)];
    const auto rows = v.sliced(0, r0, r1);
    if (rows.is_contiguous()) {
      detail::copy_any<Target>(sh.data(), rows.data(), static_cast<std::size_t>(sh.size()) * sizeof(T), st);
    } else {  // strided rows: gathered on the source's device, then copied
      const int src = detail::device_of<Target>(v.data());
      array<T, Target> packed;
      {
        detail::device_guard<Target> g(src >= 0 ? src : d[i]);
        const stream_ref ss = detail::shard_stream<Target>(src >= 0 ? src : d[i]);
        packed = detail::materialize<Target, T>(detail::layout_of(rows), ss);
        detail::sync_stream<Target>(ss);
      }
      detail::copy_any<Target>(sh.data(), packed.data(), static_cast<std::size_t>(sh.size()) * sizeof(T), st);
      detail::sync_stream<Target>(st);
      detail::device_guard<Target> g(src >= 0 ? src : d[i]);
      packed = array<T, Target>();
    }
    return 0;
  });
  return a;
}

// ---- matmul ------------------------------------------------------------------

/// A (sharded by rows, rank >= 2: a matrix, or a stack of matrices sharded
/// along its batch axis) times a plain matrix B (2-D, on any device): C sharded
/// like A, shard i = matmul(A's shard i, B) on device i. B is broadcast from
/// its device to the others (one ncclBroadcast in a group; a copy on the set's
/// first device first when B is on none of them, or not contiguous), included
/// in the call. Trailing arguments: a ufunc::matmul_variant (no out, no stream).
template <class T, class Tg, class B, class... Rest>
sharded_array<T, Tg> matmul(const sharded_array<T, Tg>& a, const B& b, Rest&&... rest) {
  using TB = detail::arg_traits<detail::bare_t<B>>;
  static_assert(TB::is_array && !detail::is_sharded<detail::bare_t<B>>::value,
                "ufunc::matmul: a sharded A multiplies a plain (replicated) matrix B");
  static_assert(std::is_same_v<typename TB::value_type, T> && std::is_same_v<typename TB::target_type, Tg>,
                "ufunc::matmul: both operands must have the same element type and target");
  static_assert(((std::is_same_v<detail::bare_t<Rest>, matmul_variant>) && ...),
                "ufunc::matmul on a sharded A takes a ufunc::matmul_variant only (no out, no stream)");
  const array_view<const T, Tg> vb(b);
  if (a.ndim() < 2 || vb.shape().size() != 2 || a.shape()[a.ndim() - 1] != vb.shape()[0])
    throw shape_error("ufunc::matmul: a sharded A of shape " + a.shape().str() +
                      " (rank >= 2, sharded along axis 0) needs a 2-D B with " +
                      (a.ndim() >= 1 ? std::to_string(a.shape()[a.ndim() - 1]) : std::string("its last extent")) +
                      " rows, not shape " + vb.shape().str());
  detail::check_devices<Tg>(a.devices(), "ufunc::matmul");
  detail::controls ctl = detail::read_controls(rest...);
  detail::check_variant<Tg>("matmul", ctl.mm_variant,
                            detail::linalg_registry<Tg>::template matmul_variants_for<T>(), " for this element type");
  const std::vector<int>& ids = a.devices().ids();
  if (a.devices().spans_processes()) {
    detail::sharded_plan p;
    p.devices = a.devices();
    p.bshape = a.shape();
    p.global_rows = a.global_rows();
    detail::agree_across_ranks(p, "ufunc::matmul", b);
  }
  return detail::across_ranks(a.devices(), "ufunc::matmul", [&] {
    const auto bs = detail::replicate<T, Tg>(vb, ids);
    auto res = detail::for_each_shard<Tg>(ids, [&](int i, stream_ref st) {
      return ufunc::matmul(a.shard(i), bs.at(i), ctl.mm_variant, st);
    });
    return detail::sharded_access::assemble(a.devices(), std::move(res), a.global_rows());
  });
}

}  // namespace ufunc
