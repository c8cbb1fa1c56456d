// Category "pairwise" (cat_pairwise.cpp, cat_pairwise_more.cpp): reductions
// over all pairs of two point sets, the layout the pairwise engines take
// (detail/pairwise_plan.hpp): X (N,1[,D]) against Y (1,M[,D]) and optional
// weights B (1,M), reduced over axis 1, or the transposed layout X (1,N[,D]),
// Y (M,1[,D]), B (M,1) over axis 0; points as rows through ufunc::vec<D>
// (D 1..4) or plain coordinates (D = 0); x or y first in the call.
//   fn "sqdist": |x - y|^2                 (no weights; plus, minimum, argmin, argmax)
//   fn "dot":    (x . y) * b              (plus, maximum, argmin)
//   fn "gauss":  exp(-|x - y|^2 / 2) * b  (plus)
//   op plus/minimum/maximum: ufunc::map_reduce(fn, op)(x, y[, b], axis)
//   op argmin/argmax:        ufunc::argmin(ufunc::vectorize(fn).lazy(x, y[, b]), axis)
// Form 0 returns a new array; form 1 (float32, D = 3; sqdist with plus or
// argmin) writes keepdims into an out view. Sizes 0..300 (mostly up to 40),
// sometimes one side up to 3000, so the engines' blocks, tiles and tails are
// all hit. Sums use real values (checked within a bound); extrema and arg* use
// values on a grid of quarters (integers for int32) whose squared distances and
// dot products are exact in either precision, FMA or not, so they compare
// exactly and ties are common. Some cases carry a NaN or an infinity.
#pragma once
#include "oracle.hpp"

#include <cuda/std/array>

namespace oracle {
namespace pairwise_impl {

/// A point: its D coordinates (D = 0: one plain value).
template <class T, int D>
using pt = std::conditional_t<D == 0, T, cuda::std::array<T, D>>;
template <class T, int D>
UFUNC_HD T coord(const pt<T, D>& p, int c) {
  if constexpr (D == 0) {
    (void)c;
    return p;
  } else {
    return p[c];
  }
}
template <int D>
inline constexpr int ncoords = D == 0 ? 1 : D;

template <class T, int D>
struct sqdist {
  UFUNC_HD T operator()(const pt<T, D>& a, const pt<T, D>& b) const {
    T s = static_cast<T>((coord<T, D>(a, 0) - coord<T, D>(b, 0)) * (coord<T, D>(a, 0) - coord<T, D>(b, 0)));
    for (int c = 1; c < ncoords<D>; ++c)
      s = static_cast<T>(s + (coord<T, D>(a, c) - coord<T, D>(b, c)) * (coord<T, D>(a, c) - coord<T, D>(b, c)));
    return s;
  }
};
template <class T, int D>
struct dot_b {
  UFUNC_HD T operator()(const pt<T, D>& a, const pt<T, D>& b, T w) const {
    T s = static_cast<T>(coord<T, D>(a, 0) * coord<T, D>(b, 0));
    for (int c = 1; c < ncoords<D>; ++c) s = static_cast<T>(s + coord<T, D>(a, c) * coord<T, D>(b, c));
    return static_cast<T>(s * w);
  }
};
template <class T, int D>
struct gauss_b {
  UFUNC_HD T operator()(const pt<T, D>& a, const pt<T, D>& b, T w) const {
    const T s = sqdist<T, D>{}(a, b);
    if constexpr (std::is_same_v<T, float>)
      return expf(-0.5f * s) * w;
    else
      return exp(-0.5 * s) * w;
  }
};

/// The argument as the call takes it: vec<D>(view) or the plain view.
template <int D, class V>
auto as_points(const V& v) {
  if constexpr (D == 0)
    return v;
  else
    return ufunc::vec<D>(v);
}

/// Values: real in [-2, 2] for sums, else quarters in [-10, 10] (integers in
/// [-300, 300] for int32); maybe one NaN or infinity placed at random.
template <class T>
void fill(rng_t& g, std::vector<T>& v, bool grid, bool special) {
  for (auto& x : v) {
    if constexpr (std::is_floating_point_v<T>)
      x = grid ? static_cast<T>(uniform(g, -40, 40)) / T(4) : static_cast<T>(std::uniform_real_distribution<double>(-2, 2)(g));
    else
      x = static_cast<T>(uniform(g, -300, 300));
  }
  if constexpr (std::is_floating_point_v<T>)
    if (special && !v.empty()) {
      const T s[] = {std::numeric_limits<T>::quiet_NaN(), std::numeric_limits<T>::infinity(),
                     -std::numeric_limits<T>::infinity()};
      v[static_cast<std::size_t>(uniform(g, 0, static_cast<index_t>(v.size()) - 1))] = s[uniform(g, 0, 2)];
    }
}

/// An operand of shape `want` (random layout) with values from fill().
template <class T>
operand<T> points(rng_t& g, const shape& want, bool grid, bool special) {
  auto op = make_operand<T>(g, want, values::full, false);
  fill(g, op.host, grid, special);
  op.base = to_dev(op.host, op.base.shape());
  op.build();
  return op;
}

/// Runs `red(args..., axis)` (Out false) or writes keepdims into an out view.
template <bool Out, class Red, class... A>
void run_form(rng_t& g, writer& w, record& rec, int axis, const Red& red, const A&... a) {
  run_case(rec, [&] {
    if constexpr (!Out) {
      put_result(rec, w, "result", red(a..., ufunc::axis(axis)));
    } else {
      auto r = red(a..., ufunc::axis(axis), ufunc::keepdims);  // the result's type and shape (and its errors)
      using Res = typename decltype(r)::value_type;
      auto o = make_operand<Res>(g, r.shape(), values::full, false);
      rec.add("out", o.json(w));
      red(a..., ufunc::axis(axis), ufunc::keepdims, ufunc::out(o.view));
      std::vector<int> id(static_cast<std::size_t>(o.view.ndim()));
      for (std::size_t i = 0; i < id.size(); ++i) id[i] = static_cast<int>(i);
      put_result(rec, w, "result", ufunc::transpose(o.view, id));
      put_result(rec, w, "out_base", o.base);
    }
  });
}

/// One case of element type T and core dimension D with function `fn`.
template <class T, int D, bool Out>
void pairwise_case(rng_t& g, writer& w, record& rec) {
  constexpr bool is_float = std::is_floating_point_v<T>;
  // The (fn, op) pairs drawn, as bit masks over op (0 plus, 1 minimum, 2 maximum,
  // 3 argmin, 4 argmax): every op with some fn, each a reduction compiled per call
  // site (nvcc builds the pairwise kernels for each), so not every pair. No
  // integer sums; the out form: sqdist with plus and argmin only.
  constexpr unsigned plus_bit = is_float ? 1u : 0u;
  constexpr unsigned sqdist_ops = Out ? (plus_bit | 8u) : (plus_bit | 2u | 8u | 16u);
  constexpr unsigned dot_ops = Out ? 0u : (plus_bit | 4u | 8u);
  constexpr unsigned gauss_ops = Out || !is_float ? 0u : 1u;
  const int fn = Out ? 0 : static_cast<int>(uniform(g, 0, is_float ? 2 : 1));
  const unsigned allowed = fn == 0 ? sqdist_ops : fn == 1 ? dot_ops : gauss_ops;
  std::vector<int> choices;
  for (int k = 0; k < 5; ++k)
    if (allowed >> k & 1u) choices.push_back(k);
  const int op = pick(g, choices);
  // Sizes 0..300 (most up to 40, a few 0 or 1); one in 25 cases has one side
  // of 300..3000 (at most ~10^6 pairs: NumPy's dense reference stays cheap).
  // Mostly small, so that few cases start threads: the oracle runs at 2 threads
  // on a loaded 2-core CI machine, where each parallel region waits for a
  // scheduler slice.
  const int big = chance(g, 0.04) ? static_cast<int>(uniform(g, 1, 2)) : 0;
  auto size = [&](int side) {
    if (big == side) return uniform(g, 300, 3000);
    return chance(g, 0.05) ? uniform(g, 0, 1) : chance(g, 0.65) ? uniform(g, 2, 40) : uniform(g, 41, 300);
  };
  const index_t n = size(1), m = size(2);
  const int orient = static_cast<int>(uniform(g, 0, 1));  // 1: the transposed layout, reduced over axis 0
  const bool yfirst = chance(g, 0.25);                       // y before x in the call
  const int axis = orient ? (chance(g, 0.3) ? -2 : 0) : (chance(g, 0.3) ? -1 : 1);
  const int form = Out ? 1 : 0;
  auto with_core = [&](std::vector<index_t> d) {
    if (D > 0) d.push_back(D);
    return shape(d);
  };
  const bool grid = op != 0;
  const bool special = is_float && chance(g, 0.15);
  auto xo = points<T>(g, with_core(orient ? std::vector<index_t>{1, n} : std::vector<index_t>{n, 1}), grid,
                      special && chance(g, 0.5));
  auto yo = points<T>(g, with_core(orient ? std::vector<index_t>{m, 1} : std::vector<index_t>{1, m}), grid, special);
  const bool has_b = fn != 0;
  auto bo = points<T>(g, orient ? shape{m, 1} : shape{1, m}, grid, false);
  static const char* fns[] = {"sqdist", "dot", "gauss"};
  static const char* ops[] = {"plus", "minimum", "maximum", "argmin", "argmax"};
  rec.add("op", jstr(ops[op]));
  rec.add("fn", jstr(fns[fn]));
  rec.add("D", std::to_string(D));
  rec.add("axis", std::to_string(axis));
  rec.add("form", std::to_string(form));
  rec.add("yfirst", yfirst ? "true" : "false");
  rec.add("dtype", jstr(dtype_name<T>()));
  // inputs: [x, y(, b)] in that order whatever the call's order
  rec.add("inputs", "[" + xo.json(w) + "," + yo.json(w) + (has_b ? "," + bo.json(w) : std::string()) + "]");
  const std::string pa = D > 0 ? "ufunc::vec<" + std::to_string(D) + ">(" : "(";
  const std::string args = yfirst ? pa + "x1), " + pa + "x0)" : pa + "x0), " + pa + "x1)";
  const std::string callee = op < 3 ? std::string("ufunc::map_reduce(") + fns[fn] + ", ufunc::" + ops[op] + "{})"
                                    : std::string("ufunc::") + ops[op] + "(ufunc::vectorize(" + fns[fn] + ").lazy";
  rec.add("call", jstr(callee + "(" + args + (has_b ? ", x2" : "") + (op >= 3 ? ")" : "") + ", ufunc::axis(" +
                       std::to_string(axis) + ")" + (form ? ", ufunc::keepdims, ufunc::out(o))" : ")")));

  const auto px = as_points<D>(xo.view), py = as_points<D>(yo.view);
  const auto& a0 = yfirst ? py : px;
  const auto& a1 = yfirst ? px : py;
  // The reductions of f: sums (floats), extrema and arg* (not for gauss).
  auto go = [&](auto f, auto with_b, auto ops) {
    constexpr bool B = decltype(with_b)::value;
    constexpr unsigned M = decltype(ops)::value;
    auto call = [&](const auto& red) {
      if constexpr (B)
        run_form<Out>(g, w, rec, axis, red, a0, a1, bo.view);
      else
        run_form<Out>(g, w, rec, axis, red, a0, a1);
    };
    // argmin/argmax of the lazy node f(a0, a1[, b]): the node is built inside
    auto arg = [&](auto is_max) {
      const auto v = ufunc::vectorize(f);
      run_form<Out>(g, w, rec, axis, [&](const auto&... o) {
        auto node = [&] {
          if constexpr (B)
            return v.lazy(a0, a1, bo.view);
          else
            return v.lazy(a0, a1);
        }();
        if constexpr (decltype(is_max)::value)
          return ufunc::argmax(node, o...);
        else
          return ufunc::argmin(node, o...);
      });
    };
    if constexpr ((M & 1u) != 0)
      if (op == 0) call(ufunc::map_reduce(f, ufunc::plus{}));
    if constexpr ((M & 2u) != 0)
      if (op == 1) call(ufunc::map_reduce(f, ufunc::minimum{}));
    if constexpr ((M & 4u) != 0)
      if (op == 2) call(ufunc::map_reduce(f, ufunc::maximum{}));
    if constexpr ((M & 8u) != 0)
      if (op == 3) arg(std::false_type{});
    if constexpr ((M & 16u) != 0)
      if (op == 4) arg(std::true_type{});
  };
  using no = std::false_type;
  using yes = std::true_type;
  if (fn == 0) {
    go(sqdist<T, D>{}, no{}, std::integral_constant<unsigned, sqdist_ops>{});
  } else if constexpr (dot_ops != 0) {
    if (fn == 1)
      go(dot_b<T, D>{}, yes{}, std::integral_constant<unsigned, dot_ops>{});
    else if constexpr (gauss_ops != 0)
      go(gauss_b<T, D>{}, yes{}, std::integral_constant<unsigned, gauss_ops>{});
  }
}

}  // namespace pairwise_impl

}  // namespace oracle
