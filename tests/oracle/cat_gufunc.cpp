// Category "gufunc": ufunc::gufunc against NumPy's counterparts:
//   form 0: "(m,n),(n)->(m)" matrix-vector (float32, float64)  np.einsum('...mn,...n->...m')
//   form 1: "(n),(n)->()" dot (float32, float64)               np.einsum('...n,...n->...')
//   form 2: "(n)->(n)" reversal (every dtype)                   np.flip(x, -1)
//   form 3: "(m,n)->(n,m)" a core transpose (every dtype)       np.swapaxes(x, -1, -2)
// Loop dims broadcast (one case in 25 clashes), a core dim sometimes differs
// between operands or is missing, operands of any layout; forms 2 and 3 write a
// random-layout out view in one case of three.
#include "oracle.hpp"

namespace oracle {
namespace gufunc_impl {

template <class T>
struct matvec_f {
  template <class A, class X, class Y>
  UFUNC_HD void operator()(const A& a, const X& x, const Y& y) const noexcept {
    for (index_t i = 0; i < a.shape()[0]; ++i) {
      T s = 0;
      for (index_t j = 0; j < a.shape()[1]; ++j) s += a(i, j) * x(j);
      y(i) = s;
    }
  }
};
template <class T>
struct dot_f {
  template <class X, class Y, class R>
  UFUNC_HD void operator()(const X& x, const Y& y, const R& r) const noexcept {
    T s = 0;
    for (index_t j = 0; j < x.shape()[0]; ++j) s += x(j) * y(j);
    r() = s;
  }
};
struct flip_f {
  template <class X, class Y>
  UFUNC_HD void operator()(const X& x, const Y& y) const noexcept {
    const index_t n = x.shape()[0];
    for (index_t j = 0; j < n; ++j) y(j) = x(n - 1 - j);
  }
};
struct swap_f {
  template <class X, class Y>
  UFUNC_HD void operator()(const X& x, const Y& y) const noexcept {
    for (index_t i = 0; i < x.shape()[0]; ++i)
      for (index_t j = 0; j < x.shape()[1]; ++j) y(j, i) = x(i, j);
  }
};

/// `loop` with `core` appended.
inline shape with_core(const shape& loop, std::initializer_list<index_t> core) {
  std::vector<index_t> d(loop.begin(), loop.end());
  d.insert(d.end(), core.begin(), core.end());
  return shape(d);
}

template <class T>
void gufunc_case(rng_t& g, writer& w, record& rec, int form) {
  const shape s = random_shape(g, 3, chance(g, 0.03));
  const bool clash = chance(g, 0.04);
  const auto loops = broadcast_operands(g, s, 2, clash);
  auto dim = [&] { return chance(g, 0.06) ? index_t(0) : uniform(g, 1, 5); };
  const index_t m = dim(), n = dim();
  const index_t n2 = chance(g, 0.05) ? n + 1 : n;  // a core dim that differs
  const bool short_rank = chance(g, 0.03);         // an operand with fewer dims than its core
  rec.add("op", jstr("gufunc"));
  rec.add("form", std::to_string(form));
  rec.add("dtype", jstr(dtype_name<T>()));
  if (form <= 1) {
    const bool big = chance(g, 0.02);
    const index_t nn = big ? uniform(g, 100, 400) : n;
    auto a = make_operand<T>(g, short_rank ? shape{nn} : with_core(loops[0], form == 0 ? std::initializer_list<index_t>{m, nn}
                                                                                  : std::initializer_list<index_t>{nn}),
                             values::full, false);
    auto x = make_operand<T>(g, with_core(loops[1], {big ? nn : n2}), values::full, false);
    rec.add("inputs", "[" + a.json(w) + "," + x.json(w) + "]");
    if (form == 0) {
      rec.add("call", jstr("ufunc::gufunc(matvec, \"(m,n),(n)->(m)\")(x0, x1)"));
      run_case(rec, [&] { put_result(rec, w, "result", ufunc::gufunc(matvec_f<T>{}, "(m,n),(n)->(m)")(a.view, x.view)); });
    } else {
      rec.add("call", jstr("ufunc::gufunc(dot, \"(n),(n)->()\")(x0, x1)"));
      run_case(rec, [&] { put_result(rec, w, "result", ufunc::gufunc(dot_f<T>{}, "(n),(n)->()")(a.view, x.view)); });
    }
    return;
  }
  const shape in_shape = short_rank ? shape{} : form == 2 ? with_core(loops[0], {n}) : with_core(loops[0], {m, n});
  auto x = make_operand<T>(g, in_shape, values::full, true);
  rec.add("inputs", "[" + x.json(w) + "]");
  const char* sig = form == 2 ? "(n)->(n)" : "(m,n)->(n,m)";
  rec.add("call", jstr(std::string("ufunc::gufunc(f, \"") + sig + "\")(x0" + ")"));
  auto run = [&](const auto& f) {
    const auto gf = ufunc::gufunc(f, sig);
    const bool valid = !short_rank;
    if (valid && chance(g, 0.33)) {
      const shape os = form == 2 ? with_core(loops[0], {n}) : with_core(loops[0], {n, m});
      auto o = make_operand<T>(g, os, values::full, false);
      rec.add("out", o.json(w));
      run_case(rec, [&] {
        gf(x.view, ufunc::out(o.view));
        put_result(rec, w, "out_base", o.base);
      });
    } else {
      run_case(rec, [&] { put_result(rec, w, "result", gf(x.view)); });
    }
  };
  if (form == 2) run(flip_f{});
  else run(swap_f{});
}

}  // namespace gufunc_impl

void category_gufunc(rng_t& g, writer& w, record& rec) {
  using namespace gufunc_impl;
  const int form = static_cast<int>(uniform(g, 0, 3));
  if (form <= 1)
    for_dtype(static_cast<int>(uniform(g, f32, f64)), [&](auto t) {
      using T = decltype(t);
      if constexpr (std::is_floating_point_v<T>) gufunc_case<T>(g, w, rec, form);
    });
  else
    for_dtype(static_cast<int>(uniform(g, 0, n_dtypes - 1)), [&](auto t) { gufunc_case<decltype(t)>(g, w, rec, form); });
}

}  // namespace oracle
