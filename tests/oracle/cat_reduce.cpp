// Category "reduce": sum, prod, min, max, mean over a random subset of the axes
// (any order, negative or not, sometimes repeated or out of range), with and
// without keepdims, or the whole array to a host value; argmin/argmax over one
// axis (with or without keepdims) or the whole array (a flat index).
#include "oracle.hpp"

namespace oracle {
namespace reduce_impl {

template <bool arg, class R, class T>
void reduce_with(rng_t& g, writer& w, record& rec, const char* name, const R& red, const operand<T>& x) {
  const int nd = x.view.ndim();
  // form 0: whole array -> host value; 1: axes; 2: axes + keepdims; 3: keepdims alone (all axes);
  // 4: axes into out (a view of the result's type with a random layout)
  const int form = static_cast<int>(uniform(g, 0, 4));
  std::vector<int> ax;
  if (form == 1 || form == 2 || form == 4) {
    if constexpr (arg) {
      ax.push_back(static_cast<int>(uniform(g, -nd - 1, nd)));  // sometimes out of range
    } else {
      for (int a = 0; a < nd; ++a)
        if (chance(g, 0.5)) ax.push_back(chance(g, 0.3) ? a - nd : a);
      std::shuffle(ax.begin(), ax.end(), g);
      if (chance(g, 0.04)) ax.push_back(static_cast<int>(uniform(g, -nd - 1, nd)));  // repeated or out of range
    }
  }
  std::string axs;
  for (std::size_t i = 0; i < ax.size(); ++i) axs += (i ? "," : "") + std::to_string(ax[i]);
  rec.add("op", jstr(name));
  rec.add("form", std::to_string(form));
  if (form == 1 || form == 2 || form == 4) rec.add("axes", jlist(ax));
  const std::string axarg = arg ? "ufunc::axis(" + axs + ")" : "ufunc::axes{" + axs + "}";
  switch (form) {
    case 0:
      rec.add("call", jstr(std::string("ufunc::") + name + "(x0)"));
      run_case(rec, [&] { put_scalar(rec, w, "result", red(x.view)); });
      break;
    case 1:
      rec.add("call", jstr(std::string("ufunc::") + name + "(x0, " + axarg + ")"));
      run_case(rec, [&] {
        if constexpr (arg) put_result(rec, w, "result", red(x.view, ufunc::axis(ax[0])));
        else put_result(rec, w, "result", red(x.view, ufunc::axes(ax)));
      });
      break;
    case 2:
      rec.add("call", jstr(std::string("ufunc::") + name + "(x0, " + axarg + ", ufunc::keepdims)"));
      run_case(rec, [&] {
        if constexpr (arg) put_result(rec, w, "result", red(x.view, ufunc::axis(ax[0]), ufunc::keepdims));
        else put_result(rec, w, "result", red(x.view, ufunc::axes(ax), ufunc::keepdims));
      });
      break;
    case 4:
      rec.add("call", jstr(std::string("ufunc::") + name + "(x0, " + axarg + ", ufunc::out(o))"));
      run_case(rec, [&] {
        // The result's type and shape from a call without out (which throws
        // where the out call would, for a bad axis).
        auto r = [&] {
          if constexpr (arg) return red(x.view, ufunc::axis(ax[0]));
          else return red(x.view, ufunc::axes(ax));
        }();
        using Res = typename decltype(r)::value_type;
        auto o = make_operand<Res>(g, r.shape(), values::full, false);
        rec.add("out", o.json(w));
        if constexpr (arg) red(x.view, ufunc::axis(ax[0]), ufunc::out(o.view));
        else red(x.view, ufunc::axes(ax), ufunc::out(o.view));
        std::vector<int> id(static_cast<std::size_t>(o.view.ndim()));
        for (std::size_t i = 0; i < id.size(); ++i) id[i] = static_cast<int>(i);
        put_result(rec, w, "result", ufunc::transpose(o.view, id));  // the view's elements, contiguous
        put_result(rec, w, "out_base", o.base);
      });
      break;
    default:
      rec.add("call", jstr(std::string("ufunc::") + name + "(x0, ufunc::keepdims)"));
      run_case(rec, [&] { put_result(rec, w, "result", red(x.view, ufunc::keepdims)); });
      break;
  }
}

template <class T>
void reduce_case(rng_t& g, writer& w, record& rec) {
  const int op = static_cast<int>(uniform(g, 0, 6));
  const bool big = chance(g, 0.04) && op != 1;  // a long product would leave the float range
  const shape s = random_shape(g, 4, big);
  const values how = op == 1 ? values::near_one : values::full;
  // int32/int64 sums of full-range values overflow; NumPy wraps in int64, C++'s
  // int64 overflow is undefined: bounded there (int32 overflow is a listed difference).
  const values how2 = (op == 0 || op == 4) && std::is_same_v<T, std::int64_t> ? values::bounded : how;
  auto x = make_operand<T>(g, s, how2, chance(g, 0.3));
  rec.add("dtype", jstr(dtype_name<T>()));
  rec.add("inputs", "[" + x.json(w) + "]");
  switch (op) {
    case 0: reduce_with<false>(g, w, rec, "sum", ufunc::sum, x); break;
    case 1: reduce_with<false>(g, w, rec, "prod", ufunc::prod, x); break;
    case 2: reduce_with<false>(g, w, rec, "min", ufunc::min, x); break;
    case 3: reduce_with<false>(g, w, rec, "max", ufunc::max, x); break;
    case 4: reduce_with<false>(g, w, rec, "mean", ufunc::mean, x); break;
    case 5: reduce_with<true>(g, w, rec, "argmin", ufunc::argmin, x); break;
    default: reduce_with<true>(g, w, rec, "argmax", ufunc::argmax, x); break;
  }
}

}  // namespace reduce_impl

void category_reduce(rng_t& g, writer& w, record& rec) {
  using namespace reduce_impl;
  for_dtype(static_cast<int>(uniform(g, 0, n_dtypes - 1)), [&](auto t) { reduce_case<decltype(t)>(g, w, rec); });
}

}  // namespace oracle
