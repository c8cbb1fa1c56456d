// Float sums on the GPU with an error that does not grow with N. Every CUDA
// reduction engine has each thread fold a run of its elements serially before
// the trees over threads, blocks and chunks (CUB's whole-array reduce about N / T
// elements a thread, the column kernel R / (rows of a block x chunks)), so a
// float accumulator's error grew like that run (2^32 x 0.1f: 3.9e-5 relative).
// Here a sum (`ufunc::plus`) of float accumulators is carried by a wider one
// inside the engine: float in double, double in a compensated pair (the
// TwoSum-exact error of every addition kept in a second double, as Ogita, Rump
// and Oishi's Sum2). A run of d additions then costs d * 2^-53 (float) or
// about d^2 * 2^-106 (double) relative to sum |x|, far below one rounding of the
// element type for every d up to 2^26, and the result is rounded once to the
// accumulator type at the end: |error| <= eps |S| + eps sum|x| (plus the packs'
// tree below). The caller's accumulator, result type and finishing step are
// unchanged: the wide value is narrowed before the job's `fin` and `init` apply.
//
// Cost: a conversion and a double add per element at most (FP64 runs at half the
// FP32 rate on the H100/H200, far above what memory delivers), and far fewer
// where the engine's loads allow: the whole-array path adds packs of 16 bytes (4
// floats, 8 halves) by a fixed tree in the narrow accumulator, the row kernels a
// round of 16-byte slots (U slots of V values, in order), the column kernel a
// round of U rows of each output, then widen once. So an element passes through
// at most U x V - 1 narrow roundings (15 for floats, 31 for halves in rows of the
// block kernel) before the wide accumulator takes it.

#pragma once

#include <cstdint>
#include <cstring>
#include <type_traits>

#include "../../ops.hpp"
#include "../element.hpp"  // cuda::std::complex declared
#include "../reduce_job.hpp"
#include "../reduce_source.hpp"

namespace ufunc::detail {

struct identity_map;  // detail/reduce.hpp

/// A double with the exact error of the additions that made it (s + c ~ value).
struct comp_double {
  double s;
  double c;
};

/// TwoSum of the leading parts, their errors added (Sum2's combination).
struct comp_plus {
  UFUNC_HD comp_double operator()(const comp_double& a, const comp_double& b) const {
    const double s = a.s + b.s;
    const double bb = s - a.s;
    const double e = (a.s - (s - bb)) + (b.s - bb);
    return {s, a.c + b.c + e};
  }
  /// Zero (a chunked whole sum starts every chunk from it).
  template <class T>
  static UFUNC_HD constexpr T identity() {
    return T{0.0, 0.0};
  }
};

/// Which sums widen, and to what: the wide type, its op, and the conversions.
template <class Acc, class Op>
struct wide_sum {
  static constexpr bool value = false;
};
template <>
struct wide_sum<float, plus> {
  static constexpr bool value = true;
  using type = double;
  using op = plus;
  static UFUNC_HD double widen(float v) { return static_cast<double>(v); }
  static UFUNC_HD float narrow(double v) { return static_cast<float>(v); }
};
template <>
struct wide_sum<double, plus> {
  static constexpr bool value = true;
  using type = comp_double;
  using op = comp_plus;
  static UFUNC_HD comp_double widen(double v) { return {v, 0.0}; }
  static UFUNC_HD double narrow(const comp_double& v) { return v.s + v.c; }
};

/// complex<float> (complex64) sums: carried by a complex<double>, each part as a
/// float sum is. complex<double> does not widen (no compensated complex pair):
/// its error grows with each thread's serial run, d 2^-53 sum|part| for a run
/// of d. (A partial specialization: cuda::std::complex is only declared here,
/// and the members are instantiated where a complex sum is, with the type complete.)
template <class P>
struct wide_sum<cuda::std::complex<P>, plus> {
  static constexpr bool value = std::is_same_v<P, float>;
  // Spelled through P: a dependent type, checked only where a complex sum
  // instantiates it (nvcc's front end rejects an incomplete non-dependent one).
  using type = cuda::std::complex<std::conditional_t<std::is_same_v<P, float>, double, P>>;
  using op = plus;
  static UFUNC_HD type widen(const cuda::std::complex<P>& v) { return type(v.real(), v.imag()); }
  static UFUNC_HD cuda::std::complex<P> narrow(const type& v) {
    return cuda::std::complex<P>(static_cast<P>(v.real()), static_cast<P>(v.imag()));
  }
};

/// The job's accumulator and op widen (a float or double `plus`, or a complex<float> one).
template <class Job>
struct job_widens : std::false_type {};
template <bool HasInit, class Src, class Acc, class Op, class Fin, std::size_t NIN>
struct job_widens<reduce_job<HasInit, Src, Acc, Op, Fin, NIN>> : std::bool_constant<wide_sum<Acc, Op>::value> {};

/// A lift that widens what the inner lift makes.
template <class Lift, class Acc>
struct wide_lift {
  static constexpr bool uses_index = Lift::uses_index;
  Lift inner;
  template <class V>
  UFUNC_HD auto operator()(const V& v, index_t r) const {
    return wide_sum<Acc, plus>::widen(inner(v, r));
  }
};

/// The job's finishing step on a wide value: narrowed first.
template <class Fin, class Acc>
struct wide_fin {
  Fin inner;
  template <class W>
  UFUNC_HD auto operator()(const W& a) const {
    return inner(wide_sum<Acc, plus>::narrow(a));
  }
};

/// A reduction source whose elements come out widened (map_source's interface as
/// the engines use it; fold_type stays the inner one, so row kernels load and
/// hold the narrow values and widen each as it is folded).
template <class Src>
struct wide_source {
  using inner_acc = typename Src::acc_type;
  using ws = wide_sum<inner_acc, plus>;
  using acc_type = typename ws::type;
  using base_t = typename Src::base_t;
  using fold_type = typename Src::fold_type;
  static constexpr bool contiguous_candidate = Src::contiguous_candidate;
  static constexpr bool dense = Src::dense;
  static constexpr bool arg_pointer_candidate = false;
  static constexpr bool is_partial = false;
  static constexpr int vec_width = Src::vec_width;
  static constexpr bool makes_all = Src::makes_all;
  Src inner;
  decltype(Src::map) map;
  wide_lift<decltype(Src::lift), inner_acc> lift;

  explicit wide_source(const Src& s) : inner(s), map(s.map), lift{s.lift} {}

  UFUNC_HD auto first_pointer() const { return inner.first_pointer(); }
  bool vec_rows_ok(int V) const { return inner.vec_rows_ok(V); }
  bool vec_columns_ok(int V) const { return inner.vec_columns_ok(V); }
  UFUNC_HD base_t base(index_t o) const { return inner.base(o); }
  UFUNC_EXEC_CHECK_DISABLE
  UFUNC_HD acc_type at(const base_t& b, index_t r) const { return ws::widen(inner.at(b, r)); }
  using row_t = typename Src::row_t;
  UFUNC_HD row_t row(index_t o) const { return inner.row(o); }
  UFUNC_EXEC_CHECK_DISABLE
  UFUNC_HD acc_type at_row(const row_t& w, index_t r) const { return ws::widen(inner.at_row(w, r)); }
  UFUNC_EXEC_CHECK_DISABLE
  template <int V>
  UFUNC_HD void at_row_vec_fold(const row_t& w, index_t r, fold_type* out) const {
    inner.template at_row_vec_fold<V>(w, r, out);
  }
  bool made_flat_ok(int V) const { return inner.made_flat_ok(V); }
  UFUNC_EXEC_CHECK_DISABLE
  template <int V>
  UFUNC_HD void made_vec_fold(const base_t& b, index_t r, fold_type* out) const {
    inner.template made_vec_fold<V>(b, r, out);
  }
  UFUNC_EXEC_CHECK_DISABLE
  UFUNC_HD acc_type lift_fold(const fold_type& v, index_t r) const { return ws::widen(inner.lift_fold(v, r)); }
};

template <class Src>
struct is_wide_source : std::false_type {};
template <class Src>
struct is_wide_source<wide_source<Src>> : std::true_type {};

/// What the column kernel loads from a source: its accumulator values, or for
/// a widened sum the inner (narrow) ones, widened as they are folded.
template <class Src>
struct column_load {
  static constexpr bool wide = false;
  using type = typename Src::acc_type;
  static UFUNC_HD const Src& of(const Src& s) { return s; }
  static UFUNC_HD const type& widen(const type& v) { return v; }
};
template <class Src>
struct column_load<wide_source<Src>> {
  static constexpr bool wide = true;
  using type = typename Src::acc_type;
  static UFUNC_HD const Src& of(const wide_source<Src>& s) { return s.inner; }
  static UFUNC_HD auto widen(const type& v) { return wide_source<Src>::ws::widen(v); }
};

/// The job as the engines run it when it widens.
template <class Job>
struct wide_job;
template <bool HasInit, class Src, class Acc, class Op, class Fin, std::size_t NIN>
struct wide_job<reduce_job<HasInit, Src, Acc, Op, Fin, NIN>> {
  using ws = wide_sum<Acc, Op>;
  using W = typename ws::type;
  using source = wide_source<Src>;
  using fin = wide_fin<Fin, Acc>;
  using type = reduce_job<HasInit, source, W, typename ws::op, fin, NIN>;
  static type make(const reduce_job<HasInit, Src, Acc, Op, Fin, NIN>& j, const source& src) {
    return type{src, j.g, acc_op<W, typename ws::op>{}, ws::widen(j.init), fin{j.fin}};
  }
};

/// Whole sums through CUB (cuda/reduce.hpp run_all) in items of one 16-byte
/// load per input: an item's W lifted values (W = 16 / the widest input's
/// element size) are added by a fixed pairwise tree in the narrow accumulator
/// (log2 W roundings at most), then widened once. Items are whole and
/// branch-free, so the compiler issues a thread's loads for several items
/// together; the elements before the first 16-byte boundary and the last
/// (R - head) % W (`tail_value`) are added by the one thread that stores the
/// result (store_finished). H200, bench/NOTES.md (session 18):
/// bf16 sum 2^28 0.83 -> 0.92 of a read kernel, float 2^27 0.89 -> 0.95, a
/// float dot 0.87 -> 0.98 (two inputs: the row kernels before). Items of 32
/// bytes with a branch for a short last one ran at 0.82-0.88; without the
/// branch, 32 bytes an item lost three quarters (CUB's 16-20 items a thread,
/// all their loads hoisted: registers).
///
/// a[0] + ... + a[N - 1] by a fixed pairwise tree (N a power of two), in Acc.
template <class Acc, int N>
UFUNC_HD Acc pack_tree(Acc (&a)[N]) {
  static_assert(N >= 1 && (N & (N - 1)) == 0, "pack_tree: a power-of-two count");
#if defined(__CUDACC__)
#  pragma unroll
#endif
  for (int h = N / 2; h >= 1; h /= 2)
#if defined(__CUDACC__)
#  pragma unroll
#endif
    for (int k = 0; k < h; ++k) a[k] = static_cast<Acc>(a[k] + a[k + h]);
  return a[0];
}

/// One input (pointer p, 16-byte aligned; item i is p[W i .. W i + W)).
template <class T, class Map, class Lift, class Acc>
struct pack_tree_sum {
  static constexpr int width = 16 / static_cast<int>(sizeof(T));
  static_assert(width >= 2 && (width & (width - 1)) == 0, "pack_tree_sum: whole 16-byte loads");
  using ws = wide_sum<Acc, plus>;
  /// A plain bfloat16 sum in float (little-endian words: element 2k in the low half).
  static constexpr bool bf16_words = std::is_same_v<T, __nv_bfloat16> && std::is_same_v<Map, identity_map> &&
                                     std::is_same_v<Lift, lift_cast<float>> && std::is_same_v<Acc, float>;
  const T* p;
  Map map;
  Lift lift;
  UFUNC_EXEC_CHECK_DISABLE
  UFUNC_HD auto operator()(index_t i) const {
    const vec_reg<T, width> v = *reinterpret_cast<const vec_reg<T, width>*>(p + i * width);
    Acc a[width];
    if constexpr (bf16_words) {
      // A bfloat16 is a float's upper half: each 32-bit word gives two floats
      // with one shift or mask (element by element: a byte permute and a shift).
      unsigned w[width / 2];
      memcpy(w, &v, sizeof(w));
#if defined(__CUDACC__)
#  pragma unroll
#endif
      for (int k = 0; k < width / 2; ++k) {
        const unsigned lo = w[k] << 16, hi = w[k] & 0xffff0000u;
        memcpy(&a[2 * k], &lo, 4);
        memcpy(&a[2 * k + 1], &hi, 4);
      }
    } else {
#if defined(__CUDACC__)
#  pragma unroll
#endif
      for (int k = 0; k < width; ++k) a[k] = lift(map(v.v[k]), index_t(0));
    }
    return ws::widen(pack_tree(a));
  }
  /// Elements [0, h) and [e0, e1) (the head before the first whole pack and
  /// the tail after the last: fewer than W each, at least one element), in
  /// order, widened once.
  UFUNC_EXEC_CHECK_DISABLE
  UFUNC_HD auto tail_value(index_t h, index_t e0, index_t e1) const {
    Acc a = lift(map(p[h > 0 ? 0 : e0]), index_t(0));
    for (index_t e = 1; e < h; ++e) a = static_cast<Acc>(a + lift(map(p[e]), index_t(0)));
    for (index_t e = h > 0 ? e0 : e0 + 1; e < e1; ++e) a = static_cast<Acc>(a + lift(map(p[e]), index_t(0)));
    return ws::widen(a);
  }
};

/// Several inputs (a dot product, a sum of a lazy expression of arrays), each
/// contiguous along the reduction: array input k's element e at
/// ins<k>.p[off[k] + e], read W at a time (one load of W of its elements,
/// aligned to their size); a value input repeated. The map applied lane by lane.
template <int W, class Acc, class Map, class Lift, class Ins, std::size_t NIN>
struct pack_map_sum {
  static_assert(W >= 1 && (W & (W - 1)) == 0, "pack_map_sum: a power-of-two width");
  static constexpr int width = W;
  using ws = wide_sum<Acc, plus>;
  Map map;
  Lift lift;
  Ins ins;
  index_t off[NIN];
  UFUNC_EXEC_CHECK_DISABLE
  UFUNC_HD auto operator()(index_t i) const { return item(i * W, std::make_index_sequence<NIN>{}); }
  /// Elements [e0, e1) (the tail; every input is aligned, so there is no head: h is 0).
  UFUNC_EXEC_CHECK_DISABLE
  UFUNC_HD auto tail_value(index_t, index_t e0, index_t e1) const { return tail(e0, e1, std::make_index_sequence<NIN>{}); }

 private:
  template <std::size_t K>
  UFUNC_HD auto lanes(index_t e) const {
    using Op = cuda::std::tuple_element_t<K, Ins>;
    using T = typename Op::value_type;
    const Op& op = cuda::std::get<K>(ins);
    if constexpr (Op::is_array) {
      return *reinterpret_cast<const vec_reg<T, W>*>(op.p + off[K] + e);
    } else {
      vec_reg<T, W> x;
      for (int j = 0; j < W; ++j) x.v[j] = op.load(0);
      return x;
    }
  }
  template <std::size_t K>
  UFUNC_HD auto one(index_t e) const {
    return cuda::std::get<K>(ins).load(cuda::std::tuple_element_t<K, Ins>::is_array ? off[K] + e : 0);
  }
  UFUNC_EXEC_CHECK_DISABLE
  template <std::size_t... K>
  UFUNC_HD auto item(index_t e, std::index_sequence<K...>) const {
    const cuda::std::tuple<decltype(lanes<K>(e))...> v(lanes<K>(e)...);
    Acc a[W];
#if defined(__CUDACC__)
#  pragma unroll
#endif
    for (int j = 0; j < W; ++j) a[j] = lift(map(cuda::std::get<K>(v).v[j]...), index_t(0));
    return ws::widen(pack_tree(a));
  }
  UFUNC_EXEC_CHECK_DISABLE
  template <std::size_t... K>
  UFUNC_HD auto tail(index_t e0, index_t e1, std::index_sequence<K...>) const {
    Acc a = lift(map(one<K>(e0)...), index_t(0));
    for (index_t e = e0 + 1; e < e1; ++e) a = static_cast<Acc>(a + lift(map(one<K>(e)...), index_t(0)));
    return ws::widen(a);
  }
};

/// The ends of a pack sum, added by store_finished: elements [0, h) and
/// [e0, e1) of the whole reduction, from the pack's base (none when h == 0
/// and e0 == e1).
template <class P>
struct pack_tail {
  static constexpr bool present = true;
  P pack;
  index_t h, e0, e1;
  UFUNC_HD bool any() const { return h > 0 || e0 < e1; }
  UFUNC_HD auto value() const { return pack.tail_value(h, e0, e1); }
};

}  // namespace ufunc::detail
