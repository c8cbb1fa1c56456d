// Element evaluation, shared by every backend and by both the flat and the N-d
// paths: the operands a kernel reads (an array pointer or a broadcast value), the
// functor's result split into its outputs, and fast index division.
// Materialisation (where results are written) lives elsewhere, so lazy
// expressions can reuse these pieces.
//
// The operand concept: what a kernel needs from an input. An operand type Op has
//   - `using value_type`: the type it yields (the functor's argument converts from it);
//   - `static constexpr bool is_array`: true when it reads memory at an offset
//     (the planner then gives it strides; false: one value broadcast everywhere,
//     stride 0 in every dim);
//   - `UFUNC_HD value_type load(O off) const`: the element at operand offset `off`
//     (elements from the operand's base; O is the plan's 32- or 64-bit offset type);
//   - `UFUNC_HD Op rebased(index_t off) const`: the operand moved by `off` elements
//     (row kernels rebase once per row, then load at small offsets).
// An array operand is either memory (in_ptr: the kernels' vector paths read
// its pointer `p` directly) or computed (`static constexpr bool computed =
// true`, in_computed below: a lazy random leaf): its element at offset `off`
// is a function of its base plus `off`, there is no pointer, and it adds
//   - `UFUNC_HD vec_reg<value_type, V> load_vec<V>(O off) const`: the V elements
//     from `off` on (a generator makes them together: one Philox block per four
//     floats, where V loads would make four).
// Every kernel that reads `p` tests `is_computed_v<Op>` and reads such an
// operand through load / load_vec instead (operand_base / operand_read below);
// the engines whose pointer paths have no such test (CUB's reduction, the
// host's contiguous readers) are steered away by the reduction source.
// How an operand is walked (contiguous with vector loads, broadcast, strided) and
// whether it is aligned for vector access are decided on the host from its
// `operand_layout` (layout.hpp: data pointer, element size, shape, strides) and
// passed to the kernel; the operand itself stays a plain value copied to the
// device. A lazy expression is evaluated through its leaves: each leaf is an
// operand (with its own layout, walk mode and vector width) and the expression's
// tree is the functor (detail/expr_tree.hpp).
#pragma once

#include <cuda/std/tuple>
#include <cuda/std/utility>
#include <cstdint>
#include <type_traits>
#include <utility>

#include "../config.hpp"
#include "cuda/launch.hpp"  // vec_reg
#include "element.hpp"     // convert, UFUNC_EXEC_CHECK_DISABLE

// The helpers below are host-device templates that also call host-only functors
// (a plain lambda given to the host target): UFUNC_EXEC_CHECK_DISABLE
// (element.hpp) tells nvcc not to check that instantiation.

namespace ufunc::detail {

/// An input read from memory; `p` is the operand's base address (flat path: the
/// element pointer; N-d path: combined with a per-operand offset).
template <class T>
struct in_ptr {
  using value_type = T;
  static constexpr bool is_array = true;
  const T* p;
  template <class O>
  UFUNC_HD T load(O off) const { return p[off]; }
  UFUNC_HD in_ptr rebased(index_t off) const { return {p + off}; }
};

/// An array operand whose elements are computed from their offset (no memory):
/// `Gen` has `value_type`, `value(i)` (element i of the generator's own index
/// space) and `values<V>(i, out)` (elements i .. i + V - 1). `base` is the
/// index of the element at offset 0; offsets are in elements, as for in_ptr.
template <class Gen>
struct in_computed {
  using value_type = typename Gen::value_type;
  static constexpr bool is_array = true;
  static constexpr bool computed = true;
  Gen gen;
  std::uint64_t base;
  template <class O>
  UFUNC_HD value_type load(O off) const {
    return gen.value(base + static_cast<std::uint64_t>(off));  // (mod 2^64: a negative off steps back)
  }
  UFUNC_HD in_computed rebased(index_t off) const { return {gen, base + static_cast<std::uint64_t>(off)}; }
  template <int V, class O>
  UFUNC_HD vec_reg<value_type, V> load_vec(O off) const {
    vec_reg<value_type, V> r;
    gen.template values<V>(base + static_cast<std::uint64_t>(off), r.v);
    return r;
  }
  /// load_vec's V elements written to `out` (the host's tiles of made values).
  template <int V, class O>
  UFUNC_HD void load_into(O off, value_type* out) const {
    gen.template values<V>(base + static_cast<std::uint64_t>(off), out);
  }
};

/// True for an operand computed from its offset (in_computed): it has no pointer.
template <class Op, class = void>
struct is_computed : std::false_type {};
template <class Op>
struct is_computed<Op, std::enable_if_t<Op::computed>> : std::true_type {};
template <class Op>
inline constexpr bool is_computed_v = is_computed<Op>::value;
/// True when a kernel over these operands makes its array elements instead of
/// loading them (every array operand computed, at least one): it is bound by
/// arithmetic, not DRAM latency, so it wants few values in flight per thread
/// (registers) and every resident warp, not the loads-in-flight tuning.
template <class... Ops>
inline constexpr bool makes_all_arrays_v = ((is_computed_v<Ops> || !Ops::is_array) && ...) && (is_computed_v<Ops> || ...);

/// Where a kernel reads array operand `op` from offset `off` on: a pointer into
/// its memory, or (computed) the operand rebased; operand_read(b, i) is its
/// element i from there. For memory these are exactly `op.p + off` and `b[i]`.
template <class Op>
UFUNC_HD auto operand_base(const Op& op, index_t off) {
  if constexpr (is_computed_v<Op>)
    return op.rebased(off);
  else
    return op.p + off;
}
template <class B, class I>
UFUNC_HD auto operand_read(const B& b, I i) {
  if constexpr (std::is_pointer_v<B>)
    return b[i];
  else
    return b.load(i);
}

/// An input broadcast everywhere (a scalar argument).
template <class T>
struct in_value {
  using value_type = T;
  static constexpr bool is_array = false;
  T v;
  template <class O>
  UFUNC_HD T load(O) const { return v; }
  UFUNC_HD in_value rebased(index_t) const { return *this; }
};

/// A nullary functor returning a fixed value (used by `full`).
template <class T>
struct fill_value {
  T v;
  UFUNC_HD T operator()() const { return v; }
};

/// How a functor's result splits into outputs: a `cuda::std::tuple` or
/// `cuda::std::pair` gives one output per element, anything else one output.
template <class R>
struct result_traits {
  static constexpr int nout = 1;
  template <int J>
  using type = R;
  template <int J>
  static UFUNC_HD const R& get(const R& r) { return r; }
};
template <class... A>
struct result_traits<cuda::std::tuple<A...>> {
  static constexpr int nout = sizeof...(A);
  template <int J>
  using type = cuda::std::tuple_element_t<J, cuda::std::tuple<A...>>;
  template <int J>
  static UFUNC_HD const type<J>& get(const cuda::std::tuple<A...>& r) { return cuda::std::get<J>(r); }
};
template <class A, class B>
struct result_traits<cuda::std::pair<A, B>> {
  static constexpr int nout = 2;
  template <int J>
  using type = cuda::std::tuple_element_t<J, cuda::std::pair<A, B>>;
  template <int J>
  static UFUNC_HD const type<J>& get(const cuda::std::pair<A, B>& r) { return cuda::std::get<J>(r); }
};

/// Writes result element `k` (of type R) to each output at `off`.
UFUNC_EXEC_CHECK_DISABLE
template <class R, class Outs, std::size_t... J>
UFUNC_HD void store_result(const Outs& outs, index_t off, const R& r, std::index_sequence<J...>) {
  ((cuda::std::get<J>(outs)[off] =
        convert<std::remove_reference_t<decltype(cuda::std::get<J>(outs)[0])>>(
            result_traits<R>::template get<static_cast<int>(J)>(r))),
   ...);
}

/// Writes a result to each output j at its own offset off[j] (strided outputs).
UFUNC_EXEC_CHECK_DISABLE
template <class R, class Outs, class O, std::size_t... J>
UFUNC_HD void store_result_at(const Outs& outs, const O* off, const R& r, std::index_sequence<J...>) {
  ((cuda::std::get<J>(outs)[off[J]] =
        convert<std::remove_reference_t<decltype(cuda::std::get<J>(outs)[0])>>(
            result_traits<R>::template get<static_cast<int>(J)>(r))),
   ...);
}

/// Calls f on the operands' values at the given per-operand offsets.
UFUNC_EXEC_CHECK_DISABLE
template <class F, class Ins, class O, std::size_t... I>
UFUNC_HD decltype(auto) eval_at(const F& f, const Ins& ins, const O* off, std::index_sequence<I...>) {
  (void)off;  // unused for nullary functions
  return f(cuda::std::get<I>(ins).load(off[I])...);
}

/// Calls f on the operands' values at one flat index.
UFUNC_EXEC_CHECK_DISABLE
template <class F, class Ins, std::size_t... I>
UFUNC_HD decltype(auto) eval_flat(const F& f, const Ins& ins, index_t i, std::index_sequence<I...>) {
  (void)i;  // unused for nullary functions
  return f(cuda::std::get<I>(ins).load(i)...);
}

/// True when calling f on values of the element types A... is declared not to
/// throw (`noexcept`). The host backend writes such a function's results straight
/// into a caller's `out`; any other function's go through a temporary first, so
/// that an exception leaves `out` untouched (see vectorize.hpp, reduce.hpp).
template <class F, class... A>
inline constexpr bool nothrow_call_v = noexcept(std::declval<const F&>()(std::declval<A>()...));

/// Unsigned division by a run-time constant. For 32-bit indices it uses a
/// multiply-high and a shift (Granlund-Montgomery, as in PyTorch's IntDivider),
/// valid for dividends below 2^31; 64-bit indices use plain division.
template <class Idx>
struct divider {
  Idx d = 1;
  divider() = default;
  explicit divider(Idx divisor) : d(divisor) {}
  UFUNC_HD Idx div(Idx n) const { return n / d; }
};
template <>
struct divider<std::uint32_t> {
  std::uint32_t d = 1, magic = 0, shift = 0;
  divider() = default;
  explicit divider(std::uint32_t divisor) : d(divisor) {
    while (shift < 32 && (std::uint64_t(1) << shift) < divisor) ++shift;
    magic = static_cast<std::uint32_t>(((std::uint64_t(1) << 32) * ((std::uint64_t(1) << shift) - divisor)) / divisor + 1);
  }
  UFUNC_HD std::uint32_t div(std::uint32_t n) const {
#if UFUNC_DEVICE_PASS
    const std::uint32_t t = __umulhi(n, magic);
#else
    const auto t = static_cast<std::uint32_t>((std::uint64_t(n) * magic) >> 32);
#endif
    return (t + n) >> shift;
  }
};

inline constexpr int max_rank = 8;

/// The N-d iteration plan handed to kernels: dims after dropping size-1 dims and
/// merging contiguous neighbours (innermost last), dividers for each dim, and
/// each operand's element stride per dim (outputs first, then inputs).
template <int NOPS, class Idx>
struct nd_plan {
  /// Offsets are 32-bit when the index is (the planner checks every offset fits),
  /// which halves the integer work per element.
  using off_type = std::conditional_t<sizeof(Idx) == 4, std::int32_t, index_t>;
  int ndim = 0;
  index_t dims[max_rank] = {};
  divider<Idx> div[max_rank];
  off_type strides[NOPS > 0 ? NOPS : 1][max_rank] = {};

  /// Sets off[] to the offsets of linear element `idx` of the first `nd` dims
  /// (all of them by default) and returns the innermost of those coordinates.
  /// 64-bit plans take a run-time loop over the dims: unrolled over max_rank,
  /// each of the seven 64-bit divisions became LLVM's pair of a 32- and a
  /// 64-bit division in every copy; in the reduction kernels, whose element
  /// loops are unrolled too, that was most of their code (a float sum along an
  /// axis: 112 64-bit divisions in one kernel, its kernels a third of their
  /// PTX without), compiled at every call site for the same run-time work.
  /// The loop indexes the plan at run time: read in place from a kernel's
  /// parameters that measured no slower (bench/NOTES.md, session 32), but a
  /// plan inside an iterator that CUB copies into each thread goes to local
  /// memory (cumsum 6x slower); those take offsets_unrolled (scan.hpp,
  /// reduceat.hpp).
  UFUNC_HD Idx offsets(Idx idx, off_type* off) const { return offsets(idx, off, ndim); }
  UFUNC_HD Idx offsets(Idx idx, off_type* off, int nd) const {
    if constexpr (sizeof(Idx) == 8) {
      for (int k = 0; k < NOPS; ++k) off[k] = 0;
      Idx inner = idx;
      // (No loop inside this loop: with one, nvcc unrolled it despite `unroll 1`.)
#if defined(__CUDACC__)
#  pragma unroll 1
#endif
      for (int d = nd - 1; d >= 1; --d) {
        const Idx q = div[d].div(idx);
        const Idx r = idx - q * static_cast<Idx>(dims[d]);
        if (d == nd - 1) inner = r;
        add_offsets(off, r, d, std::make_index_sequence<static_cast<std::size_t>(NOPS)>{});
        idx = q;
      }
      add_offsets(off, idx, 0, std::make_index_sequence<static_cast<std::size_t>(NOPS)>{});
      return inner;
    } else {
      return offsets_unrolled(idx, off, nd);
    }
  }
  /// offsets(), unrolled over max_rank whatever the index width (see offsets()).
  UFUNC_HD Idx offsets_unrolled(Idx idx, off_type* off) const { return offsets_unrolled(idx, off, ndim); }
  UFUNC_HD Idx offsets_unrolled(Idx idx, off_type* off, int nd) const {
    for (int k = 0; k < NOPS; ++k) off[k] = 0;
    Idx inner = idx;
#if defined(__CUDACC__)
#  pragma unroll
#endif
    for (int d = max_rank - 1; d >= 1; --d) {
      if (d < nd) {
        const Idx q = div[d].div(idx);
        const Idx r = idx - q * static_cast<Idx>(dims[d]);
        if (d == nd - 1) inner = r;
#if defined(__CUDACC__)
#  pragma unroll
#endif
        for (int k = 0; k < NOPS; ++k) off[k] += static_cast<off_type>(r) * strides[k][d];
        idx = q;
      }
    }
#if defined(__CUDACC__)
#  pragma unroll
#endif
    for (int k = 0; k < NOPS; ++k) off[k] += static_cast<off_type>(idx) * strides[k][0];
    return inner;
  }

 private:
  template <std::size_t... K>
  UFUNC_HD void add_offsets(off_type* off, Idx r, int d, std::index_sequence<K...>) const {
    ((off[K] += static_cast<off_type>(r) * strides[K][d]), ...);
  }
};

}  // namespace ufunc::detail
