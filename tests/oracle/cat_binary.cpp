// Category "binary": vectorized binary functions with broadcasting, random
// layouts, optional out (a strided view, or in place into the first input).
// Functions keep NumPy's same-type semantics: T(a + b) wraps small integers
// as NumPy's int8/uint8 arithmetic does; int32/int64 data is bounded so that
// no signed overflow happens (undefined in C++, wrapping in NumPy).
#include "oracle.hpp"

namespace oracle {
namespace binary_impl {  // named: nvcc refuses extended lambdas in unnamed namespaces

struct add_f {
  template <class T> UFUNC_HD T operator()(T a, T b) const { return static_cast<T>(a + b); }
};
struct subtract_f {
  template <class T> UFUNC_HD T operator()(T a, T b) const { return static_cast<T>(a - b); }
};
struct multiply_f {
  template <class T> UFUNC_HD T operator()(T a, T b) const { return static_cast<T>(a * b); }
};
struct maximum_f {
  template <class T> UFUNC_HD T operator()(T a, T b) const { return ufunc::maximum{}(a, b); }
};
struct minimum_f {
  template <class T> UFUNC_HD T operator()(T a, T b) const { return ufunc::minimum{}(a, b); }
};
struct hypot_f {  // floats only
  UFUNC_HD float operator()(float a, float b) const { return hypotf(a, b); }
  UFUNC_HD double operator()(double a, double b) const { return hypot(a, b); }
};
struct less_f {
  template <class T> UFUNC_HD bool operator()(T a, T b) const { return a < b; }
};
struct not_equal_f {
  template <class T> UFUNC_HD bool operator()(T a, T b) const { return a != b; }
};

template <class T, class F>
void binary_case(rng_t& g, writer& w, record& rec, const char* name, F fn) {
  // A lambda in a vectorize: the custom-function path users write.
  const auto f = ufunc::vectorize([fn] UFUNC_HD(T a, T b) { return fn(a, b); });
  using R = decltype(fn(T{}, T{}));
  const bool big = chance(g, 0.03);
  const shape s = random_shape(g, 4, big);
  const bool clash = chance(g, 0.04);
  const auto shp = broadcast_operands(g, s, 2, clash);
  const bool arith = std::string(name) == "add" || std::string(name) == "subtract" || std::string(name) == "multiply";
  const values how = arith ? values::bounded : values::full;
  // 0-3 new array, 4 out view, 5 in place, 6 a C++ scalar as the second argument
  const int mode = clash ? 0 : static_cast<int>(uniform(g, 0, 6));
  auto x = make_operand<T>(g, shp[0], how, true);
  auto y = make_operand<T>(g, mode == 6 ? shape{} : shp[1], how, true);
  rec.add("op", jstr(name));
  rec.add("dtype", jstr(dtype_name<T>()));
  rec.add("inputs", "[" + x.json(w) + "," + y.json(w) + "]");
  std::string call = std::string("ufunc::vectorize(") + name + ")(x0, x1)";
  if (mode == 5 && std::is_same_v<R, T> && shp[0] == s) {
    rec.add("out_is_input", "0");
    rec.add("call", jstr(std::string("ufunc::vectorize(") + name + ")(x0, x1, ufunc::out(x0))"));
    run_case(rec, [&] {
      f(x.view, y.view, ufunc::out(x.view));
      put_result(rec, w, "out_base", x.base);
    });
  } else if (mode == 4 || mode == 5) {  // 5: when in place is not possible
    auto o = make_operand<R>(g, s, values::full, false);
    rec.add("out", o.json(w));
    rec.add("call", jstr(std::string("ufunc::vectorize(") + name + ")(x0, x1, ufunc::out(o))"));
    run_case(rec, [&] {
      f(x.view, y.view, ufunc::out(o.view));
      put_result(rec, w, "out_base", o.base);
    });
  } else if (mode == 6) {  // NumPy: the 0-d array x1 (same dtype, so the same result type)
    const T v = y.host[0];
    rec.add("call", jstr(std::string("ufunc::vectorize(") + name + ")(x0, " + dtype_name<T>() + " scalar x1)"));
    run_case(rec, [&] { put_result(rec, w, "result", f(x.view, v)); });
  } else {
    rec.add("call", jstr(call));
    run_case(rec, [&] { put_result(rec, w, "result", f(x.view, y.view)); });
  }
}

template <class T>
void binary(rng_t& g, writer& w, record& rec) {
  int op = static_cast<int>(uniform(g, 0, 7));
  if (op == 5 && !std::is_floating_point_v<T>) op = 0;  // hypot: floats
  if (op == 1 && std::is_same_v<T, bool>) op = 2;        // NumPy has no bool subtract
  switch (op) {
    case 0: binary_case<T>(g, w, rec, "add", add_f{}); break;
    case 1: binary_case<T>(g, w, rec, "subtract", subtract_f{}); break;
    case 2: binary_case<T>(g, w, rec, "multiply", multiply_f{}); break;
    case 3: binary_case<T>(g, w, rec, "maximum", maximum_f{}); break;
    case 4: binary_case<T>(g, w, rec, "minimum", minimum_f{}); break;
    case 5:
      if constexpr (std::is_floating_point_v<T>) binary_case<T>(g, w, rec, "hypot", hypot_f{});
      break;
    case 6: binary_case<T>(g, w, rec, "less", less_f{}); break;
    default: binary_case<T>(g, w, rec, "not_equal", not_equal_f{}); break;
  }
}

}  // namespace binary_impl

void category_binary(rng_t& g, writer& w, record& rec) {
  using namespace binary_impl;
  for_dtype(static_cast<int>(uniform(g, 0, n_dtypes - 1)), [&](auto t) { binary<decltype(t)>(g, w, rec); });
}

}  // namespace oracle
