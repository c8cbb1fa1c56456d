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
// where the engine's loads allow: the whole-array path adds packs of 32 bytes (8
// floats, 16 halves) by a fixed tree in the narrow accumulator, the row kernels a
// round of 16-byte slots (U slots of V values, in order), the column kernel a
// round of U rows of each output, then widen once. So an element passes through
// at most U x V - 1 narrow roundings (15 for floats, 31 for halves in rows of the
// block kernel) before the wide accumulator takes it.

#pragma once

#include <cstdint>
#include <type_traits>

#include "../../ops.hpp"
#include "../element.hpp"  // cuda::std::complex declared
#include "../reduce_job.hpp"
#include "../reduce_source.hpp"

namespace ufunc::detail {

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
  UFUNC_EXEC_CHECK_DISABLE
  template <int V>
  UFUNC_HD void at_vec(const base_t& b, index_t r, index_t rstep, acc_type* out) const {
    inner_acc t[V];
    inner.template at_vec<V>(b, r, rstep, t);
    for (int j = 0; j < V; ++j) out[j] = ws::widen(t[j]);
  }
  UFUNC_EXEC_CHECK_DISABLE
  template <int V>
  UFUNC_HD void at_vec_fold(const base_t& b, index_t r, fold_type* out) const {
    inner.template at_vec_fold<V>(b, r, out);
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

// Bytes an item of the whole sums below: a tuning knob (16, 32 or 64; on an
// H200 16 lost 6 % of the speed of 32 and 64 gained nothing: bench/NOTES.md).
#ifndef UFUNC_WIDE_PACK_BYTES
#  define UFUNC_WIDE_PACK_BYTES 32
#endif

/// Whole sums of 16-bit floats, floats and doubles in packs of 32 bytes (two
/// 16-byte loads an item): the pack's lifted values summed by a fixed pairwise
/// tree in the narrow accumulator (log2(width) roundings at most), then widened
/// once. 16-bit floats: CUB does not vectorise 2-byte loads (0.82 of peak where
/// floats reach 0.86, H100); packs of 32 bytes reached 0.87 (bench/NOTES.md).
/// The base must be 16-byte aligned; the last, short pack is padded with zeros.
template <class T, class Map, class Lift, class Acc>
struct pack_tree_sum {
  static constexpr int width = UFUNC_WIDE_PACK_BYTES / static_cast<int>(sizeof(T));
  static_assert(width >= 2 && (width & (width - 1)) == 0, "pack_tree_sum: whole 16-byte loads");
  static constexpr int loads = UFUNC_WIDE_PACK_BYTES / 16;
  using ws = wide_sum<Acc, plus>;
  const T* p;
  index_t n;
  Map map;
  Lift lift;
  UFUNC_EXEC_CHECK_DISABLE
  UFUNC_HD auto operator()(index_t i) const {
    const index_t b = i * width;
    Acc a[width];
    if (b + width <= n) {
      uint4 raw[loads];  // every load issued before any use
      const uint4* q = reinterpret_cast<const uint4*>(p + b);
#pragma unroll
      for (int l = 0; l < loads; ++l) raw[l] = q[l];
      const T* v = reinterpret_cast<const T*>(raw);
#pragma unroll
      for (int k = 0; k < width; ++k) a[k] = lift(map(v[k]), index_t(0));
    } else {
      // The last, short pack: its elements, then zeros (the identity of the
      // sum), with no loop: both paths straight-line code, so the loads of a
      // thread's items can all be issued before their additions.
#pragma unroll
      for (int k = 0; k < width; ++k) a[k] = b + k < n ? static_cast<Acc>(lift(map(p[b + k]), index_t(0))) : Acc(0);
    }
#pragma unroll
    for (int h = width / 2; h >= 1; h /= 2)
#pragma unroll
      for (int k = 0; k < h; ++k) a[k] = static_cast<Acc>(a[k] + a[k + h]);
    return ws::widen(a[0]);
  }
};

}  // namespace ufunc::detail
