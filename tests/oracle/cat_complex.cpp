// Category "complex": cuda::std::complex<float> and <double> (NumPy's complex64
// and complex128) against NumPy:
//   form 0: vectorize(mul_conj)(x, y), x * conj(y), y broadcast   x * np.conj(y)
//   form 1: vectorize(modulus)(x), cuda::std::abs                 np.abs(x) (float32/float64)
//   form 2: sum(x) or sum(x, axis(k))                             np.sum(x, axis=k)
//   form 3: prod(x) or prod(x, axis(k)) (modulus near 1)          np.prod(x, axis=k)
//   form 4: mean(x) or mean(x, axis(k))                           np.mean(x, axis=k)
// x of rank 0..3 in any layout, zero-size dims sometimes, axes sometimes out of
// range; no NaN or infinity (C99's complex rules for them are not the subject).
#include "oracle.hpp"

#include <cuda/std/complex>

namespace oracle {
namespace complex_impl {

struct mul_conj {
  template <class C>
  UFUNC_HD C operator()(const C& x, const C& y) const {
    return x * cuda::std::conj(y);
  }
};
struct modulus {
  template <class C>
  UFUNC_HD typename C::value_type operator()(const C& x) const {
    return cuda::std::abs(x);
  }
};

template <class C>
void complex_case(rng_t& g, writer& w, record& rec) {
  const int form = static_cast<int>(uniform(g, 0, 4));
  rec.add("op", jstr("complex"));
  rec.add("form", std::to_string(form));
  rec.add("dtype", jstr(dtype_name<C>()));
  const shape s = random_shape(g, 3, chance(g, 0.05) && form != 3);
  auto x = make_operand<C>(g, s, form == 3 ? values::near_one : values::bounded, false);
  if (form == 0) {
    const shape ys = broadcast_operands(g, s, 1, chance(g, 0.04))[0];
    auto y = make_operand<C>(g, ys, values::bounded, false);
    rec.add("inputs", "[" + x.json(w) + "," + y.json(w) + "]");
    rec.add("call", jstr("ufunc::vectorize(mul_conj{})(x0, x1)"));
    run_case(rec, [&] { put_result(rec, w, "result", ufunc::vectorize(mul_conj{})(x.view, y.view)); });
    return;
  }
  rec.add("inputs", "[" + x.json(w) + "]");
  if (form == 1) {
    rec.add("call", jstr("ufunc::vectorize(modulus{})(x0)"));
    run_case(rec, [&] { put_result(rec, w, "result", ufunc::vectorize(modulus{})(x.view)); });
    return;
  }
  const char* name = form == 2 ? "sum" : form == 3 ? "prod" : "mean";
  const auto go = [&](const auto& red) {
    const int nd = s.size();
    if (nd == 0 || chance(g, 0.25)) {
      rec.add("call", jstr(std::string("ufunc::") + name + "(x0)"));
      run_case(rec, [&] { put_scalar(rec, w, "result", static_cast<C>(red(x.view))); });
      return;
    }
    const int ax = static_cast<int>(chance(g, 0.05) ? uniform(g, -nd - 2, nd + 1) : uniform(g, -nd, nd - 1));
    rec.add("axis", std::to_string(ax));
    rec.add("call", jstr(std::string("ufunc::") + name + "(x0, ufunc::axis(" + std::to_string(ax) + "))"));
    run_case(rec, [&] { put_result(rec, w, "result", red(x.view, ufunc::axis(ax))); });
  };
  if (form == 2) go(ufunc::sum);
  else if (form == 3) go(ufunc::prod);
  else go(ufunc::mean);
}

}  // namespace complex_impl

void category_complex(rng_t& g, writer& w, record& rec) {
  using namespace complex_impl;
  if (chance(g, 0.5))
    complex_case<cuda::std::complex<float>>(g, w, rec);
  else
    complex_case<cuda::std::complex<double>>(g, w, rec);
}

}  // namespace oracle
