// Element evaluation for reductions, shared by every backend: where the elements
// of one output's reduction come from (a fused map over broadcast inputs, or a
// buffer of partial results), how they become accumulator values, and what is
// done to an accumulated value before it is stored. Like operand.hpp it knows
// nothing about launches or memory, so lazy expressions can reuse it.
#pragma once

#include <cuda/std/type_traits>
#include <cstdint>
#include <cstring>
#include <type_traits>
#include <utility>

#include "../config.hpp"
#include "../ops.hpp"
#include "element.hpp"
#include "operand.hpp"

namespace ufunc::detail {

/// The reduction operator as the engines call it: its result is converted back to
/// the accumulator type (e.g. `plus` on two shorts yields int).
template <class Acc, class Op>
struct acc_op {
  Op op;
  UFUNC_EXEC_CHECK_DISABLE
  UFUNC_HD Acc operator()(const Acc& a, const Acc& b) const noexcept(noexcept(static_cast<Acc>(op(a, b)))) {
    return static_cast<Acc>(op(a, b));
  }
};

/// Turns a mapped element into an accumulator value; `r` is the element's linear
/// index over the reduced dims (used by argmin/argmax only).
template <class Acc>
struct lift_cast {
  static constexpr bool uses_index = false;
  template <class V>
  UFUNC_HD Acc operator()(const V& v, index_t) const { return static_cast<Acc>(v); }
};

/// A value with its position, the accumulator of argmin/argmax.
template <class T>
struct arg_acc {
  T v;
  index_t i;
};
template <class T>
struct lift_arg {
  static constexpr bool uses_index = true;
  template <class V>
  UFUNC_HD arg_acc<T> operator()(const V& v, index_t r) const { return {static_cast<T>(v), r}; }
};

/// Picks the smaller (Max = false) or larger value, the first NaN, and on ties the
/// lower index: NumPy's argmin/argmax. Commutative, as the parallel engines need.
template <class T, bool Max>
struct arg_pick {
  UFUNC_HD arg_acc<T> operator()(const arg_acc<T>& a, const arg_acc<T>& b) const {
    const bool an = is_nan(a.v), bn = is_nan(b.v);
    if (an || bn) {
      if (an && bn) return a.i < b.i ? a : b;
      return an ? a : b;
    }
    const bool a_wins = Max ? b.v < a.v : a.v < b.v;
    const bool b_wins = Max ? a.v < b.v : b.v < a.v;
    if (a_wins) return a;
    if (b_wins) return b;
    return a.i < b.i ? a : b;
  }
};

/// `a` combined with `x` when every element folded into `a` precedes `x` in
/// index order (one thread's walk through its range): `op(a, x)`, except that
/// argmin/argmax then need no index comparison (a keeps ties and a first NaN).
template <class Acc, class Op>
UFUNC_HD Acc combine_in_order(const acc_op<Acc, Op>& op, const Acc& a, const Acc& x) {
  return op(a, x);
}
template <class T, bool Max>
UFUNC_HD arg_acc<T> combine_in_order(const acc_op<arg_acc<T>, arg_pick<T, Max>>&, const arg_acc<T>& a,
                                     const arg_acc<T>& x) {
  const bool take = !is_nan(a.v) && (is_nan(x.v) || (Max ? a.v < x.v : x.v < a.v));
  return take ? x : a;
}

/// What is stored for an accumulated value: itself (converted to the result type),
/// the mean over `count` elements, or the index of argmin/argmax.
struct finish_same {
  template <class A>
  UFUNC_HD const A& operator()(const A& a) const { return a; }
};
template <class Acc>
struct finish_mean {
  index_t count;
  UFUNC_HD Acc operator()(const Acc& a) const { return a / static_cast<Acc>(count); }
};
struct finish_index {
  template <class T>
  UFUNC_HD index_t operator()(const arg_acc<T>& a) const { return a.i; }
};

/// The last step for one output: combine with the initial value (when there is
/// one) and finish. Engines that start from the initial value themselves (CUB)
/// pass has_init = false.
template <class Acc, class Op, class Fin>
struct reduce_tail {
  acc_op<Acc, Op> op;
  Fin fin;
  Acc init;
  bool has_init;
  UFUNC_HD auto operator()(Acc a) const {
    if (has_init) a = op(init, a);
    return fin(a);
  }
};

/// An accumulator that may be empty, for engines that need a starting value when
/// the operator has no identity (a custom op without `init`).
template <class Acc>
struct maybe {
  Acc v;
  bool ok;
};
template <class Acc, class Op>
struct maybe_op {
  acc_op<Acc, Op> op;
  UFUNC_HD maybe<Acc> operator()(const maybe<Acc>& a, const maybe<Acc>& b) const {
    if (!a.ok) return b;
    if (!b.ok) return a;
    return {op(a.v, b.v), true};
  }
};

/// V contiguous elements at p (aligned to their size) in one access; on the
/// device a 16-byte read-only load. No `.L2::256B` prefetch hint: on an H200 it
/// cost every reduction engine 2-4 % ((8192, 8192) float sums over axis 0 / axis
/// 1 against a read of the same bytes 0.87 / 0.92 with it, 0.91 / 0.95 without;
/// bench/NOTES.md, session 25).
template <class T, int V>
UFUNC_HD vec_reg<T, V> load_vec(const T* p) {
  vec_reg<T, V> r;
#if UFUNC_DEVICE_PASS
  if constexpr (sizeof(r) == 16) {
    uint4 u;
    asm("ld.global.nc.v4.u32 {%0,%1,%2,%3}, [%4];" : "=r"(u.x), "=r"(u.y), "=r"(u.z), "=r"(u.w) : "l"(p));
    memcpy(&r, &u, 16);
    return r;
  }
#endif
  r = *reinterpret_cast<const vec_reg<T, V>*>(p);
  return r;
}

/// Facts about a reduction's operands (in_ptr / in_value, see operand.hpp).
template <class Ins>
struct operand_set;
template <class... Ops>
struct operand_set<cuda::std::tuple<Ops...>> {
  static constexpr bool any_array = (Ops::is_array || ...);
  /// No input in memory: every array input computed (operand.hpp).
  static constexpr bool makes_all = makes_all_arrays_v<Ops...>;
  /// Elements per 16-byte access of the widest array input.
  static constexpr int vec_width =
      common_vec_width<std::conditional_t<Ops::is_array, typename Ops::value_type, unsigned char>...>();
  /// What a map returns for these operands.
  template <class Map>
  using mapped_t = std::decay_t<std::invoke_result_t<const Map&, typename Ops::value_type...>>;
};

/// The elements reduced into output `o`: map(inputs...) at kept offset `o` plus
/// reduced offset `r`, lifted to the accumulator. `kept` and `red` are the kept
/// and reduced dims, each merged, with every input's strides (0 where it
/// broadcasts). Offsets are 64-bit; the hot loops step pointers rather than
/// dividing (see `at`). Dense: the single input is contiguous and row-major by
/// its type (an owning array), so a whole reduction reads it through a pointer.
template <class Acc, class Lift, class Map, class Ins, int NIN, bool Dense = false>
struct map_source {
  using acc_type = Acc;
  using plan_type = nd_plan<NIN, std::uint64_t>;
  struct base_t {
    index_t off[NIN];
  };
  Lift lift;
  Map map;
  Ins ins;
  plan_type kept, red;

  template <std::size_t... K>
  static constexpr bool all_arrays(std::index_sequence<K...>) {
    return (cuda::std::tuple_element_t<K, Ins>::is_array && ...);
  }

  /// Any input computed from its index (a lazy random leaf, operand.hpp): it has
  /// no pointer, so the pointer paths below (CUB, the dense argmin/argmax rows,
  /// the host's contiguous readers) never take it; the row, column and pairwise
  /// engines read it through load / load_vec.
  template <std::size_t... K>
  static constexpr bool any_computed(std::index_sequence<K...>) {
    return (is_computed_v<cuda::std::tuple_element_t<K, Ins>> || ...);
  }
  static constexpr bool has_computed = any_computed(std::make_index_sequence<NIN>{});
  /// Every array input computed: the row kernels' compute-bound tuning (cuda/reduce.hpp).
  static constexpr bool makes_all = operand_set<Ins>::makes_all;
  /// One array input in memory and a map that needs no index: when that input
  /// is also contiguous, an engine may read it through a plain pointer (CUB).
  static constexpr bool contiguous_candidate =
      NIN == 1 && cuda::std::tuple_element_t<0, Ins>::is_array && !Lift::uses_index && !has_computed;
  /// One computed input: where its reduced elements are contiguous, the host
  /// makes them a tile at a time as they are read (host/reduce.hpp's
  /// computed_reader), from the operand at the output's base.
  static constexpr bool computed_candidate = NIN == 1 && has_computed;
  auto computed_input(const base_t& b) const { return cuda::std::get<0>(ins).rebased(b.off[0]); }
  static constexpr bool dense = Dense && contiguous_candidate;
  /// argmin/argmax of one array input: when it is contiguous, the row kernels
  /// may read it through a plain pointer (dense_row_source).
  static constexpr bool arg_pointer_candidate = NIN == 1 && cuda::std::tuple_element_t<0, Ins>::is_array &&
                                                Lift::uses_index && operand_set<Ins>::vec_width > 1 && !has_computed;
  /// A buffer of partial results (second pass of a split reduction): no.
  static constexpr bool is_partial = false;
  UFUNC_HD auto first_pointer() const { return cuda::std::get<0>(ins).p; }
  /// Several inputs, every one an array, and a map that needs no index: where
  /// each input's reduced elements are contiguous, the host reads them through
  /// plain pointers (unit_reader; a dot product's two inputs; a computed input
  /// through its rebased operand, element by element).
  static constexpr bool pointers_candidate = NIN > 1 && !Lift::uses_index && all_arrays(std::make_index_sequence<NIN>{});
  /// at(b, r) through pointers: the caller checked red.ndim == 1 and unit strides.
  template <std::size_t... K>
  auto unit_reader(const base_t& b, std::index_sequence<K...>) const {
    return [this, ps = cuda::std::make_tuple(operand_base(cuda::std::get<K>(ins), b.off[K])...)](index_t r) {
      return lift(map(operand_read(cuda::std::get<K>(ps), r)...), r);
    };
  }
  /// This source as a dense_row_source (arg_pointer_candidate; the caller checked
  /// that the input is contiguous).
  auto dense_rows() const;
  /// What the row kernels hold per element between its load and its fold: the
  /// accumulator, or for argmin/argmax the mapped value alone (lifted with its
  /// index as it is folded: a quarter of the registers for float).
  using fold_type = std::conditional_t<Lift::uses_index, typename operand_set<Ins>::template mapped_t<Map>, Acc>;

  /// Elements per vector access (1: no vector path): 16 bytes of the widest
  /// array input; every array input is read V elements at a time, or as one
  /// value repeated where it does not move along the vector (stride 0).
  static constexpr int vec_width = operand_set<Ins>::any_array ? operand_set<Ins>::vec_width : 1;
  /// Row kernels may read V reduced elements at once: for every array input the
  /// reduced elements are contiguous (or one broadcast value) and every output's
  /// row starts V-aligned.
  bool vec_rows_ok(int V) const {
    if constexpr (vec_width == 1) {
      return false;
    } else {
      if (red.ndim != 1) return false;
      return all_inputs([&](auto k, const auto& op) {
        const auto st = red.strides[k][0];
        if (st == 0) return true;
        if (st != 1 || !aligned(op, V)) return false;
        for (int d = 0; d < kept.ndim; ++d)
          if (kept.strides[k][d] % V) return false;
        return true;
      });
    }
  }
  /// Column kernels may read V neighbouring outputs at once: the outputs' inner
  /// dim is a multiple of V long and, for every array input, contiguous (or one
  /// broadcast value) with every other step V-aligned; and the reduced elements
  /// are one dim after merging (at_column<V> steps along it; other layouts take
  /// the scalar column kernel).
  bool vec_columns_ok(int V) const {
    if constexpr (vec_width == 1) {
      return false;
    } else {
      if (kept.ndim < 1 || kept.dims[kept.ndim - 1] % V || red.ndim > 1) return false;
      return all_inputs([&](auto k, const auto& op) {
        const auto st = kept.strides[k][kept.ndim - 1];
        if (st == 0) return true;
        if (st != 1 || !aligned(op, V)) return false;
        for (int d = 0; d < kept.ndim - 1; ++d)
          if (kept.strides[k][d] % V) return false;
        for (int d = 0; d < red.ndim; ++d)
          if (red.strides[k][d] % V) return false;
        return true;
      });
    }
  }
  /// A source that makes all its elements (every array input a computed leaf)
  /// read as one flat range of V-element slots for output 0: one reduced dim,
  /// every computed input contiguous along it from an index that starts one of
  /// its generator's blocks, V a multiple of each block. (A whole reduction of
  /// leaves is; a broadcast leaf or a rebased chunk may not be.)
  bool made_flat_ok(int V) const {
    if constexpr (vec_width == 1 || !operand_set<Ins>::makes_all) {
      return false;
    } else {
      if (red.ndim != 1) return false;
      const base_t b = base(0);
      return all_inputs([&](auto k, const auto& op) {
        using Op = bare_t<decltype(op)>;
        if constexpr (is_computed_v<Op>) {
          constexpr int W = decltype(op.gen)::block_width;
          return red.strides[k][0] == 1 && V % W == 0 &&
                 (op.base + static_cast<std::uint64_t>(b.off[k])) % static_cast<std::uint64_t>(W) == 0;
        } else {
          return false;
        }
      });
    }
  }
  /// at_row_vec_fold for a layout made_flat_ok(V) accepted: each input's V values
  /// from whole generator blocks, with none of the general path's branches
  /// (broadcast lanes, a slot that starts inside a block, N-d offsets), which
  /// cost a made reduction's arithmetic-bound loop registers and issue slots.
  UFUNC_EXEC_CHECK_DISABLE
  template <int V>
  UFUNC_HD void made_vec_fold(const base_t& b, index_t r, fold_type* out) const {
    if constexpr (vec_width > 1) made_vec_lanes<V>(b, r, out, std::make_index_sequence<NIN>{});
  }
  /// A fold_type value of reduced element r as an accumulator.
  UFUNC_EXEC_CHECK_DISABLE
  UFUNC_HD Acc lift_fold(const fold_type& v, index_t r) const {
    if constexpr (Lift::uses_index)
      return lift(v, r);
    else
      return v;
  }

  UFUNC_HD base_t base(index_t o) const {
    base_t b;
    kept.offsets(static_cast<std::uint64_t>(o), b.off);
    return b;
  }
  /// The column kernel's view of output o (kernels/reduce_columns.cuh): its
  /// base, and what each of its loads would otherwise read from the plans, held
  /// in registers: every input's step along a single reduced dim, and whether it
  /// moves along the outputs (a plan read at a run-time index, from the kernel's
  /// parameters, before every load; bench/NOTES.md, session 25).
  struct column_t {
    base_t b;
    index_t step[NIN];
    bool moves[NIN];
  };
  UFUNC_HD column_t column(index_t o) const {
    column_t c{base(o), {}, {}};
    for (int k = 0; k < NIN; ++k) {
      c.step[k] = red.ndim == 1 ? red.strides[k][0] : 0;
      c.moves[k] = kept.ndim >= 1 && kept.strides[k][kept.ndim - 1] != 0;
    }
    return c;
  }
  /// at(b, r) for the column kernel (any reduced dims).
  UFUNC_EXEC_CHECK_DISABLE
  UFUNC_HD Acc at_column(const column_t& c, index_t r) const { return at(c.b, r); }
  /// The V values of V neighbouring outputs at reduced element r (all lifted
  /// with index r) for the column kernel, where vec_columns_ok(V) holds (at
  /// most one reduced dim: each input's offset is one multiply-add).
  UFUNC_EXEC_CHECK_DISABLE
  template <int V>
  UFUNC_HD void at_column(const column_t& c, index_t r, Acc* out) const {
    if constexpr (vec_width > 1) {
      index_t off[NIN];
      for (int k = 0; k < NIN; ++k) off[k] = c.b.off[k] + r * c.step[k];
      at_lanes<V, false>(off, c.moves, r, 0, out, std::make_index_sequence<NIN>{});
    }
  }
  /// The row kernels' view of output o (kernels/reduce_slots.cuh): its base and
  /// every input's step along a single reduced dim, held in registers (the
  /// loads read no plan; as column_t, bench/NOTES.md, session 26).
  struct row_t {
    base_t b;
    index_t step[NIN];
  };
  UFUNC_HD row_t row(index_t o) const {
    row_t w{base(o), {}};
    for (int k = 0; k < NIN; ++k) w.step[k] = red.ndim == 1 ? red.strides[k][0] : 0;
    return w;
  }
  /// at(b, r) for the row kernels (any reduced dims).
  UFUNC_EXEC_CHECK_DISABLE
  UFUNC_HD Acc at_row(const row_t& w, index_t r) const { return at(w.b, r); }
  /// The V values from reduced element r on, as fold_type values (lifted with
  /// indices r + j, or for argmin/argmax the mapped values alone) for the row
  /// kernels, where vec_rows_ok(V) holds (one reduced dim, each input's step 1
  /// or 0: its offset is one multiply-add).
  UFUNC_EXEC_CHECK_DISABLE
  template <int V>
  UFUNC_HD void at_row_vec_fold(const row_t& w, index_t r, fold_type* out) const {
    if constexpr (vec_width > 1) {
      index_t off[NIN];
      bool moves[NIN];
      for (int k = 0; k < NIN; ++k) off[k] = w.b.off[k] + r * w.step[k], moves[k] = w.step[k] != 0;
      at_lanes<V, Lift::uses_index>(off, moves, r, 1, out, std::make_index_sequence<NIN>{});
    }
  }
  UFUNC_EXEC_CHECK_DISABLE
  UFUNC_HD Acc at(const base_t& b, index_t r) const {
    index_t off[NIN];
    offsets_at(b, r, off);
    return lift(eval_at(map, ins, off, std::make_index_sequence<NIN>{}), r);
  }

 private:
  /// The V values of every input at `off` (`moves[k]`: input k moves along the
  /// vector), mapped: Raw gives the mapped values (out is fold_type*), else
  /// lifted with indices r + j rstep (out is Acc*).
  UFUNC_EXEC_CHECK_DISABLE
  template <int V, bool Raw, class Out, std::size_t... K>
  UFUNC_HD void at_lanes(const index_t* off, const bool* moves, index_t r, index_t rstep, Out* out,
                         std::index_sequence<K...>) const {
    const cuda::std::tuple<decltype(lanes_moving<V, K>(off, true))...> v(lanes_moving<V, K>(off, moves[K])...);
#if defined(__CUDACC__)
#  pragma unroll
#endif
    for (int j = 0; j < V; ++j) {
      if constexpr (Raw)
        out[j] = map(cuda::std::get<K>(v).v[j]...);
      else
        out[j] = lift(map(cuda::std::get<K>(v).v[j]...), r + j * rstep);
    }
  }
  /// Every input's offset of reduced element r of the output at base b.
  UFUNC_HD void offsets_at(const base_t& b, index_t r, index_t* off) const {
    if (red.ndim <= 1) {
      for (int k = 0; k < NIN; ++k) off[k] = b.off[k] + r * red.strides[k][0];
    } else {
      red.offsets(static_cast<std::uint64_t>(r), off);
      for (int k = 0; k < NIN; ++k) off[k] += b.off[k];
    }
  }
  /// An array input's base aligned for V-wide vector loads (a computed one
  /// makes its values: any base will do).
  template <class Op>
  static bool aligned(const Op& op, int V) {
    if constexpr (is_computed_v<Op>) {
      return true;
    } else {
      using T = typename Op::value_type;
      return reinterpret_cast<std::uintptr_t>(op.p) % (sizeof(T) * static_cast<std::size_t>(V)) == 0;
    }
  }
  /// pred(k, operand) for every array input k.
  template <class Pred>
  bool all_inputs(const Pred& pred) const {
    return all_inputs(pred, std::make_index_sequence<NIN>{});
  }
  template <class Pred, std::size_t... K>
  bool all_inputs(const Pred& pred, std::index_sequence<K...>) const {
    auto one = [&](auto k) {
      const auto& op = cuda::std::get<decltype(k)::value>(ins);
      if constexpr (bare_t<decltype(op)>::is_array)
        return pred(static_cast<int>(decltype(k)::value), op);
      else
        return true;
    };
    return (one(std::integral_constant<std::size_t, K>{}) && ...);
  }

  /// Input K's V values at offset `off`: one vector load when it moves along
  /// the vector (its stride there is 1), else one value repeated.
  template <int V, std::size_t K>
  UFUNC_HD auto lanes_moving(const index_t* off, bool moves) const {
    using Op = cuda::std::tuple_element_t<K, Ins>;
    using T = typename Op::value_type;
    const Op& op = cuda::std::get<K>(ins);
    vec_reg<T, V> x;
    if constexpr (is_computed_v<Op>) {  // made, not read: one Philox block per four floats
      if (moves) return op.template load_vec<V>(off[K]);
      const T one = op.load(off[K]);
      for (int j = 0; j < V; ++j) x.v[j] = one;
    } else if constexpr (Op::is_array) {
      if (moves) return load_vec<T, V>(op.p + off[K]);
      const T one = op.p[off[K]];
      for (int j = 0; j < V; ++j) x.v[j] = one;
    } else {
      const T one = op.load(0);
      for (int j = 0; j < V; ++j) x.v[j] = one;
    }
    return x;
  }
  /// made_vec_fold's values of input K: made from whole blocks, or a
  /// non-array operand's one value repeated.
  template <int V, std::size_t K>
  UFUNC_HD auto made_lanes(const base_t& b, index_t r) const {
    using Op = cuda::std::tuple_element_t<K, Ins>;
    using T = typename Op::value_type;
    const Op& op = cuda::std::get<K>(ins);
    vec_reg<T, V> x;
    if constexpr (is_computed_v<Op>) {
      op.gen.template values_from_block<V>(op.base + static_cast<std::uint64_t>(b.off[K] + r), x.v);
    } else {
      const T one = op.load(0);
      for (int j = 0; j < V; ++j) x.v[j] = one;
    }
    return x;
  }
  UFUNC_EXEC_CHECK_DISABLE
  template <int V, std::size_t... K>
  UFUNC_HD void made_vec_lanes(const base_t& b, index_t r, fold_type* out, std::index_sequence<K...>) const {
    const cuda::std::tuple<decltype(made_lanes<V, K>(b, r))...> v(made_lanes<V, K>(b, r)...);
#if defined(__CUDACC__)
#  pragma unroll
#endif
    for (int j = 0; j < V; ++j) {
      if constexpr (Lift::uses_index)
        out[j] = map(cuda::std::get<K>(v).v[j]...);
      else
        out[j] = lift(map(cuda::std::get<K>(v).v[j]...), r + j);
    }
  }
};

/// One contiguous array input read through a plain pointer (reduced element r at
/// p[r], a single output): the row kernels' view of a map_source whose layout
/// needs no N-d plans, for argmin/argmax of a whole contiguous array. Without
/// the plans' offsets and strides the kernel takes fewer registers, so more
/// blocks stay resident and more loads are in flight.
template <class Acc, class Lift, class Map, class In>
struct dense_row_source {
  using acc_type = Acc;
  using base_t = index_t;
  using fold_type = std::decay_t<std::invoke_result_t<const Map&, In>>;
  static constexpr bool is_partial = false;
  static constexpr int vec_width = common_vec_width<In>();
  const In* p;
  Map map;
  Lift lift;
  UFUNC_HD base_t base(index_t) const { return 0; }
  UFUNC_EXEC_CHECK_DISABLE
  template <int V>
  UFUNC_HD void at_vec_fold(base_t, index_t r, fold_type* out) const {
    const auto x = load_vec<In, V>(p + r);
    for (int j = 0; j < V; ++j) out[j] = map(x.v[j]);
  }
  UFUNC_EXEC_CHECK_DISABLE
  UFUNC_HD Acc lift_fold(const fold_type& v, index_t r) const { return lift(v, r); }
  UFUNC_EXEC_CHECK_DISABLE
  UFUNC_HD Acc at(base_t, index_t r) const { return lift(map(p[r]), r); }
  using row_t = base_t;
  UFUNC_HD row_t row(index_t o) const { return base(o); }
  UFUNC_EXEC_CHECK_DISABLE
  UFUNC_HD Acc at_row(row_t w, index_t r) const { return at(w, r); }
  UFUNC_EXEC_CHECK_DISABLE
  template <int V>
  UFUNC_HD void at_row_vec_fold(row_t w, index_t r, fold_type* out) const {
    at_vec_fold<V>(w, r, out);
  }
};

template <class Acc, class Lift, class Map, class Ins, int NIN, bool Dense>
auto map_source<Acc, Lift, Map, Ins, NIN, Dense>::dense_rows() const {
  using In = typename cuda::std::tuple_element_t<0, Ins>::value_type;
  return dense_row_source<Acc, Lift, Map, In>{first_pointer(), map, lift};
}

/// Partial results of a split reduction: `chunks` rows of K accumulators; output
/// `o` reduces column o.
template <class Acc>
struct partial_source {
  using acc_type = Acc;
  using base_t = index_t;
  static constexpr bool contiguous_candidate = false, dense = false, is_partial = true;
  static constexpr int vec_width = 1;
  bool vec_rows_ok(int) const { return false; }
  bool vec_columns_ok(int) const { return false; }
  using fold_type = Acc;
  UFUNC_HD const Acc& lift_fold(const Acc& v, index_t) const { return v; }
  const Acc* p;
  index_t K;
  UFUNC_HD base_t base(index_t o) const { return o; }
  UFUNC_HD Acc at(base_t b, index_t r) const { return p[r * K + b]; }
  using column_t = base_t;
  UFUNC_HD column_t column(index_t o) const { return o; }
  UFUNC_HD Acc at_column(column_t c, index_t r) const { return at(c, r); }
  template <int V>
  UFUNC_HD void at_column(column_t, index_t, Acc*) const {}
  using row_t = base_t;
  UFUNC_HD row_t row(index_t o) const { return o; }
  UFUNC_HD Acc at_row(row_t w, index_t r) const { return at(w, r); }
  template <int V>
  UFUNC_HD void at_row_vec_fold(row_t, index_t, Acc*) const {}
};

}  // namespace ufunc::detail
