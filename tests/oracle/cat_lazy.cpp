// Category "lazy": expressions (f.lazy, ufunc::lazy and the C++ operators)
// evaluated by ufunc::evaluate, fused into an eager call, or reduced:
//   form 0: evaluate(add.lazy(mul.lazy(x0, x1), x2))        same-type functions
//   form 1: evaluate(ufunc::lazy(x0) * x1 - x2)            C++ arithmetic conversions
//   form 2: sub(mul.lazy(x0, x1), x2)                      an expression in an eager call
//   form 3: sum(mul.lazy(x0, x1), axes{...}[, keepdims])   a reduction of an expression
//   form 4: max(add.lazy(x0, x1))                          whole reduction to a host value
#include "oracle.hpp"

namespace oracle {
namespace lazy_impl {

template <class T>
void lazy_case(rng_t& g, writer& w, record& rec) {
  const auto add = ufunc::vectorize([] UFUNC_HD(T a, T b) { return static_cast<T>(a + b); });
  const auto mul = ufunc::vectorize([] UFUNC_HD(T a, T b) { return static_cast<T>(a * b); });
  const auto sub = ufunc::vectorize([] UFUNC_HD(T a, T b) { return static_cast<T>(a - b); });
  int form = static_cast<int>(uniform(g, 0, 4));
  // int64 sums of products of two bounded values (up to 2^62 each) overflow, which
  // is undefined in C++ (NumPy wraps; UBSan stops the run): form 3 (the sum of an
  // expression) is left to the other types for int64, form 2 taken instead.
  if (std::is_integral_v<T> && sizeof(T) == 8 && form == 3) form = 2;
  const shape s = random_shape(g, 4, chance(g, 0.03));
  const auto shp = broadcast_operands(g, s, 3, chance(g, 0.03));
  // Small integers: products of two, plus a third, stay in range (int32/int64
  // bounded: no signed overflow); int8/uint8 wrap as in NumPy.
  auto x0 = make_operand<T>(g, shp[0], values::bounded, true);
  auto x1 = make_operand<T>(g, shp[1], values::bounded, true);
  auto x2 = make_operand<T>(g, shp[2], values::bounded, true);
  rec.add("op", jstr("lazy"));
  rec.add("form", std::to_string(form));
  rec.add("dtype", jstr(dtype_name<T>()));
  const auto &v0 = x0.view, &v1 = x1.view, &v2 = x2.view;
  switch (form) {
    case 0:
      rec.add("inputs", "[" + x0.json(w) + "," + x1.json(w) + "," + x2.json(w) + "]");
      rec.add("call", jstr("ufunc::evaluate(add.lazy(mul.lazy(x0, x1), x2))"));
      run_case(rec, [&] { put_result(rec, w, "result", ufunc::evaluate(add.lazy(mul.lazy(v0, v1), v2))); });
      break;
    case 1:
      rec.add("inputs", "[" + x0.json(w) + "," + x1.json(w) + "," + x2.json(w) + "]");
      rec.add("call", jstr("ufunc::evaluate(ufunc::lazy(x0) * x1 - x2)"));
      run_case(rec, [&] { put_result(rec, w, "result", ufunc::evaluate(ufunc::lazy(v0) * v1 - v2)); });
      break;
    case 2:
      rec.add("inputs", "[" + x0.json(w) + "," + x1.json(w) + "," + x2.json(w) + "]");
      rec.add("call", jstr("sub(mul.lazy(x0, x1), x2)"));
      run_case(rec, [&] { put_result(rec, w, "result", sub(mul.lazy(v0, v1), v2)); });
      break;
    case 3: {
      rec.add("inputs", "[" + x0.json(w) + "," + x1.json(w) + "]");
      std::vector<int> ax;
      // The axes of the broadcast shape of x0 and x1 (NumPy decides it; a clash throws first).
      const int nd = std::max(shp[0].size(), shp[1].size());
      for (int a = 0; a < nd; ++a)
        if (chance(g, 0.5)) ax.push_back(a);
      const bool keep = chance(g, 0.5);
      rec.add("axes", jlist(ax));
      rec.add("keepdims", keep ? "true" : "false");
      std::string axs;
      for (std::size_t i = 0; i < ax.size(); ++i) axs += (i ? "," : "") + std::to_string(ax[i]);
      rec.add("call", jstr("ufunc::sum(mul.lazy(x0, x1), ufunc::axes{" + axs + "}" + (keep ? ", ufunc::keepdims)" : ")")));
      run_case(rec, [&] {
        if (keep) put_result(rec, w, "result", ufunc::sum(mul.lazy(v0, v1), ufunc::axes(ax), ufunc::keepdims));
        else put_result(rec, w, "result", ufunc::sum(mul.lazy(v0, v1), ufunc::axes(ax)));
      });
      break;
    }
    default:
      rec.add("inputs", "[" + x0.json(w) + "," + x1.json(w) + "]");
      rec.add("call", jstr("ufunc::max(add.lazy(x0, x1))"));
      run_case(rec, [&] { put_scalar(rec, w, "result", ufunc::max(add.lazy(v0, v1))); });
      break;
  }
}

}  // namespace lazy_impl

void category_lazy(rng_t& g, writer& w, record& rec) {
  using namespace lazy_impl;
  for_dtype(static_cast<int>(uniform(g, 0, n_dtypes - 1)), [&](auto t) { lazy_case<decltype(t)>(g, w, rec); });
}

}  // namespace oracle
