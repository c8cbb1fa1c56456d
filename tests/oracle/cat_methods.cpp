// Category "methods": the ufunc methods of vectorized binary functions,
// f.reduce (axis 0 by default, an axis, keepdims), f.accumulate (axis 0 by
// default or an axis) and f.outer, for add/multiply/maximum written as
// same-type lambdas (NumPy: np.add.reduce(x, axis, dtype=T), ...) and hypot.
#include "oracle.hpp"

namespace oracle {
namespace methods_impl {

template <class T, class Fn>
void methods_case(rng_t& g, writer& w, record& rec, const char* name, Fn fn) {
  const auto f = ufunc::vectorize([fn] UFUNC_HD(T a, T b) { return fn(a, b); });
  const int method = static_cast<int>(uniform(g, 0, 2));
  const bool mul = std::string(name) == "multiply";
  const values how = mul ? values::near_one : std::string(name) == "add" ? values::bounded : values::full;
  rec.add("op", jstr(name));
  rec.add("dtype", jstr(dtype_name<T>()));
  if (method == 2) {  // outer
    const shape sx = random_shape(g, 2, false), sy = random_shape(g, 2, false);
    auto x = make_operand<T>(g, sx, how, true);
    auto y = make_operand<T>(g, sy, how, true);
    rec.add("method", jstr("outer"));
    rec.add("inputs", "[" + x.json(w) + "," + y.json(w) + "]");
    rec.add("call", jstr(std::string("ufunc::vectorize(") + name + ").outer(x0, x1)"));
    run_case(rec, [&] { put_result(rec, w, "result", f.outer(x.view, y.view)); });
    return;
  }
  const shape s = random_shape(g, 4, chance(g, 0.03) && !mul);
  auto x = make_operand<T>(g, s, how, true);
  rec.add("inputs", "[" + x.json(w) + "]");
  const int nd = s.size();
  // 0 default axis, 1 axis; reduce only: 2 axis + keepdims, 3 keepdims alone (the default axis 0)
  const int form = static_cast<int>(uniform(g, 0, method == 0 ? 3 : 1));
  const int ax = static_cast<int>(chance(g, 0.05) ? uniform(g, -nd - 2, nd + 1) : nd ? uniform(g, -nd, nd - 1) : 0);
  const std::string axs = "ufunc::axis(" + std::to_string(ax) + ")";
  if (form == 1 || form == 2) rec.add("axis", std::to_string(ax));
  rec.add("form", std::to_string(form));
  if (method == 0) {
    rec.add("method", jstr("reduce"));
    const std::string pre = std::string("ufunc::vectorize(") + name + ").reduce(x0";
    if (form == 0) {
      rec.add("call", jstr(pre + ")"));
      run_case(rec, [&] { put_result(rec, w, "result", f.reduce(x.view)); });
    } else if (form == 1) {
      rec.add("call", jstr(pre + ", " + axs + ")"));
      run_case(rec, [&] { put_result(rec, w, "result", f.reduce(x.view, ufunc::axis(ax))); });
    } else if (form == 2) {
      rec.add("call", jstr(pre + ", " + axs + ", ufunc::keepdims)"));
      run_case(rec, [&] { put_result(rec, w, "result", f.reduce(x.view, ufunc::axis(ax), ufunc::keepdims)); });
    } else {
      rec.add("call", jstr(pre + ", ufunc::keepdims)"));
      run_case(rec, [&] { put_result(rec, w, "result", f.reduce(x.view, ufunc::keepdims)); });
    }
  } else {
    rec.add("method", jstr("accumulate"));
    const std::string pre = std::string("ufunc::vectorize(") + name + ").accumulate(x0";
    if (form == 0) {
      rec.add("call", jstr(pre + ")"));
      run_case(rec, [&] { put_result(rec, w, "result", f.accumulate(x.view)); });
    } else {
      rec.add("call", jstr(pre + ", " + axs + ")"));
      run_case(rec, [&] { put_result(rec, w, "result", f.accumulate(x.view, ufunc::axis(ax))); });
    }
  }
}

struct add_f {
  template <class T> UFUNC_HD T operator()(T a, T b) const { return static_cast<T>(a + b); }
};
struct multiply_f {
  template <class T> UFUNC_HD T operator()(T a, T b) const { return static_cast<T>(a * b); }
};
struct maximum_f {
  template <class T> UFUNC_HD T operator()(T a, T b) const { return ufunc::maximum{}(a, b); }
};
struct hypot_f {
  UFUNC_HD float operator()(float a, float b) const { return hypotf(a, b); }
  UFUNC_HD double operator()(double a, double b) const { return hypot(a, b); }
};

template <class T>
void methods(rng_t& g, writer& w, record& rec) {
  int op = static_cast<int>(uniform(g, 0, 3));
  if constexpr (!std::is_floating_point_v<T>) if (op == 3) op = 0;
  switch (op) {
    case 0: methods_case<T>(g, w, rec, "add", add_f{}); break;
    case 1: methods_case<T>(g, w, rec, "multiply", multiply_f{}); break;
    case 2: methods_case<T>(g, w, rec, "maximum", maximum_f{}); break;
    default:
      if constexpr (std::is_floating_point_v<T>) methods_case<T>(g, w, rec, "hypot", hypot_f{});
      break;
  }
}

}  // namespace methods_impl

void category_methods(rng_t& g, writer& w, record& rec) {
  using namespace methods_impl;
  for_dtype(static_cast<int>(uniform(g, 0, n_dtypes - 1)), [&](auto t) { methods<decltype(t)>(g, w, rec); });
}

}  // namespace oracle
