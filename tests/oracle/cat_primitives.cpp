// Category "primitives": the scans and searches beside the ufuncs, against NumPy:
//   form 0: cumsum(x, axis(k))                     np.cumsum(x, axis=k)
//   form 1: cumprod(x, axis(k)) (values near 1)    np.cumprod(x, axis=k)
//   form 2: cumsum(x)                              np.cumsum(x) (flattened)
//   form 3: cumsum(x, axis(k), exclusive)          np.cumsum shifted one place, 0 first
//   form 4: searchsorted(a, v, side)               np.searchsorted(np.sort(..), v, side)
//   form 5: vectorize(plus{}).at(a, idx, b)        np.add.at(a, idx, b) (indices repeated,
//                                                  negative, one case in 20 out of range)
//   form 6: vectorize(op).reduceat(x, idx, axis(k)) np.add/multiply/maximum/minimum.reduceat
//           (op: plus, multiplies, maximum,     (indices sorted or in any order, repeated,
//           minimum)                            one case in 20 out of range)
// Every dtype; axes sometimes out of range.
#include "oracle.hpp"

namespace oracle {
namespace primitives_impl {

/// Form 6: f.reduceat with one of NumPy's four reducing ufuncs (bool: no multiply).
template <class T>
void reduceat_case(rng_t& g, writer& w, record& rec) {
  const int which = static_cast<int>(uniform(g, 0, std::is_same_v<T, bool> ? 2 : 3));
  const char* names[] = {"add", "maximum", "minimum", "multiply"};
  const char* ops[] = {"ufunc::plus{}", "ufunc::maximum{}", "ufunc::minimum{}", "ufunc::multiplies{}"};
  rec.add("ufunc", jstr(names[which]));
  shape s = random_shape(g, 3, chance(g, 0.03) && which != 3);
  while (s.size() == 0 && !chance(g, 0.1)) s = random_shape(g, 3, false);  // a 0-d x (an error) now and then
  auto x = make_operand<T>(g, s, which == 3 ? values::near_one : which == 0 ? values::bounded : values::full, true);
  const int nd = s.size();
  const int ax = static_cast<int>(chance(g, 0.05) ? uniform(g, -nd - 2, nd + 1) : nd ? uniform(g, -nd, nd - 1) : 0);
  rec.add("axis", std::to_string(ax));
  const index_t n = (ax >= -nd && ax < nd) ? s[ax < 0 ? ax + nd : ax] : 1;
  const index_t m = chance(g, 0.05) ? 0 : uniform(g, 1, 9);
  std::vector<int> idx(static_cast<std::size_t>(m));
  for (auto& i : idx) i = static_cast<int>(uniform(g, 0, std::max<index_t>(n, 1) - 1));
  if (chance(g, 0.5)) std::sort(idx.begin(), idx.end());
  if (m > 0 && chance(g, 0.05))
    idx[static_cast<std::size_t>(uniform(g, 0, m - 1))] = static_cast<int>(chance(g, 0.5) ? n : -1);
  operand<int> io;
  io.host = idx;
  io.base = to_dev(idx, shape{m});
  io.build();
  rec.add("inputs", "[" + x.json(w) + "," + io.json(w) + "]");
  rec.add("call", jstr(std::string("ufunc::vectorize(") + ops[which] + ").reduceat(x0, x1, ufunc::axis(" +
                       std::to_string(ax) + "))"));
  const auto run = [&](auto op) {
    run_case(rec, [&] { put_result(rec, w, "result", ufunc::vectorize(op).reduceat(x.view, io.view, ufunc::axis(ax))); });
  };
  switch (which) {
    case 0: run(ufunc::plus{}); break;
    case 1: run(ufunc::maximum{}); break;
    case 2: run(ufunc::minimum{}); break;
    default:
      if constexpr (!std::is_same_v<T, bool>) run(ufunc::multiplies{});
      break;
  }
}

template <class T>
void primitives_case(rng_t& g, writer& w, record& rec) {
  int form = static_cast<int>(uniform(g, 0, 6));
  // f.at on the GPU takes 4- and 8-byte elements (compare-and-swap); bool has no plus.
  constexpr bool at_ok = !std::is_same_v<T, bool> && (sizeof(T) >= 4 || !ufunc::cuda_backend);
  if (form == 5 && !at_ok) form = 2;
  rec.add("op", jstr("primitives"));
  rec.add("form", std::to_string(form));
  rec.add("dtype", jstr(dtype_name<T>()));
  if (form <= 3) {
    const shape s = random_shape(g, 4, chance(g, 0.03) && form != 1);
    auto x = make_operand<T>(g, s, form == 1 ? values::near_one : values::bounded, form != 1);
    rec.add("inputs", "[" + x.json(w) + "]");
    const int nd = s.size();
    const int ax = static_cast<int>(chance(g, 0.05) ? uniform(g, -nd - 2, nd + 1) : nd ? uniform(g, -nd, nd - 1) : 0);
    if (form != 2) rec.add("axis", std::to_string(ax));
    switch (form) {
      case 0:
        rec.add("call", jstr("ufunc::cumsum(x0, ufunc::axis(" + std::to_string(ax) + "))"));
        run_case(rec, [&] { put_result(rec, w, "result", ufunc::cumsum(x.view, ufunc::axis(ax))); });
        break;
      case 1:
        rec.add("call", jstr("ufunc::cumprod(x0, ufunc::axis(" + std::to_string(ax) + "))"));
        run_case(rec, [&] { put_result(rec, w, "result", ufunc::cumprod(x.view, ufunc::axis(ax))); });
        break;
      case 2:
        rec.add("call", jstr("ufunc::cumsum(x0)"));
        run_case(rec, [&] { put_result(rec, w, "result", ufunc::cumsum(x.view)); });
        break;
      default:
        rec.add("call", jstr("ufunc::cumsum(x0, ufunc::axis(" + std::to_string(ax) + "), ufunc::exclusive)"));
        run_case(rec, [&] { put_result(rec, w, "result", ufunc::cumsum(x.view, ufunc::axis(ax), ufunc::exclusive)); });
        break;
    }
    return;
  }
  if (form == 4) {
    const index_t n = chance(g, 0.05) ? 0 : uniform(g, 1, chance(g, 0.05) ? 3000 : 40);
    std::vector<T> a(static_cast<std::size_t>(n));
    for (std::size_t k = 0; k < a.size(); ++k) a[k] = random_value<T>(g, chance(g, 0.5) ? values::full : values::near_one, true);
    std::sort(a.begin(), a.end(), [](const T& p, const T& q) {  // NaNs last, as np.sort
      if constexpr (std::is_floating_point_v<T>) {
        if (std::isnan(q)) return !std::isnan(p);
        if (std::isnan(p)) return false;
      }
      return p < q;
    });
    operand<T> ao;
    ao.host = a;
    ao.base = to_dev(a, shape{n});
    ao.build();
    const shape vs = random_shape(g, 2, false);
    auto v = make_operand<T>(g, vs, values::near_one, true);
    if (n > 0 && chance(g, 0.5)) {  // values taken from a: ties
      for (std::size_t k = 0; k < v.host.size(); ++k) v.host[k] = a[static_cast<std::size_t>(uniform(g, 0, n - 1))];
      v.base = to_dev(v.host, v.base.shape());
      v.build();
    }
    const bool right = chance(g, 0.5);
    rec.add("side", jstr(right ? "right" : "left"));
    rec.add("inputs", "[" + ao.json(w) + "," + v.json(w) + "]");
    rec.add("call", jstr(std::string("ufunc::searchsorted(x0, x1, ufunc::side::") + (right ? "right)" : "left)")));
    run_case(rec, [&] {
      put_result(rec, w, "result", ufunc::searchsorted(ao.view, v.view, right ? ufunc::side::right : ufunc::side::left));
    });
    return;
  }
  if (form == 6) {
    reduceat_case<T>(g, w, rec);
    return;
  }
  if constexpr (at_ok) {
    const index_t n = uniform(g, 1, 30), m = chance(g, 0.05) ? 0 : uniform(g, 1, 200);
    auto a = make_operand<T>(g, shape{n}, values::bounded, false, false);  // contiguous: the base is a
    std::vector<int> idx(static_cast<std::size_t>(m));
    for (auto& i : idx) i = static_cast<int>(uniform(g, -n, n - 1));
    if (m > 0 && chance(g, 0.05))
      idx[static_cast<std::size_t>(uniform(g, 0, m - 1))] = static_cast<int>(chance(g, 0.5) ? n : -n - 1);
    operand<int> io;
    io.host = idx;
    io.base = to_dev(idx, shape{m});
    io.build();
    auto b = make_operand<T>(g, shape{m}, values::bounded, false, false);
    rec.add("inputs", "[" + a.json(w) + "," + io.json(w) + "," + b.json(w) + "]");
    rec.add("call", jstr("ufunc::vectorize(ufunc::plus{}).at(a, idx, b)"));
    run_case(rec, [&] {
      ufunc::vectorize(ufunc::plus{}).at(a.view, io.view, b.view);
      put_result(rec, w, "result", a.base);
    });
  }
}

}  // namespace primitives_impl

void category_primitives(rng_t& g, writer& w, record& rec) {
  using namespace primitives_impl;
  for_dtype(static_cast<int>(uniform(g, 0, n_dtypes - 1)), [&](auto t) { primitives_case<decltype(t)>(g, w, rec); });
}

}  // namespace oracle
