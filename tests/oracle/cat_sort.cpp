// Category "sort": the sorts beside the ufuncs, against NumPy:
//   form 0: sort(x, axis)                      np.sort(x, axis, kind="stable")
//   form 1: argsort(x, axis)                   np.argsort(x, axis, kind="stable")
//   form 2: unique(x)                          np.unique(x)
//   form 3: unique_counts(x).counts            np.unique(x, return_counts=True)[1]
//   form 4: unique_inverse(x).inverse_indices  np.unique(x, return_inverse=True)[1]
//   form 5: unique_all(x).indices              np.unique(x, return_index=True)[1]
//   form 6: topk(x, k, axis, largest).values   the first k of a stable descending
//   form 7: topk(x, k, axis, largest).indices  (largest) or ascending argsort
// Every dtype; values with many ties (stability shows in the indices), NaNs,
// infinities and signed zeros; axes sometimes out of range, k sometimes too large.
#include "oracle.hpp"

namespace oracle {
namespace sort_impl {

template <class T>
void sort_case(rng_t& g, writer& w, record& rec) {
  const int form = static_cast<int>(uniform(g, 0, 7));
  rec.add("op", jstr("sort"));
  rec.add("form", std::to_string(form));
  rec.add("dtype", jstr(dtype_name<T>()));
  const shape s = random_shape(g, 3, chance(g, 0.03));
  auto x = make_operand<T>(g, s, values::full, true);
  if (chance(g, 0.6)) {  // ties: most elements from a handful of values
    for (std::size_t k = 0; k < x.host.size(); ++k)
      if (chance(g, 0.8)) x.host[k] = static_cast<T>(uniform(g, 0, 3));
    x.base = to_dev(x.host, x.base.shape());
    x.build();
  }
  rec.add("inputs", "[" + x.json(w) + "]");
  const int nd = s.size();
  const int ax = static_cast<int>(chance(g, 0.05) ? uniform(g, -nd - 2, nd + 1) : nd ? uniform(g, -nd, nd - 1) : -1);
  const std::string a = std::to_string(ax);
  switch (form) {
    case 0:
      rec.add("axis", a);
      rec.add("call", jstr("ufunc::sort(x0, " + a + ")"));
      run_case(rec, [&] { put_result(rec, w, "result", ufunc::sort(x.view, ax)); });
      return;
    case 1:
      rec.add("axis", a);
      rec.add("call", jstr("ufunc::argsort(x0, ufunc::axis(" + a + "))"));
      run_case(rec, [&] { put_result(rec, w, "result", ufunc::argsort(x.view, ufunc::axis(ax))); });
      return;
    case 2:
      rec.add("call", jstr("ufunc::unique(x0)"));
      run_case(rec, [&] { put_result(rec, w, "result", ufunc::unique(x.view)); });
      return;
    case 3:
      rec.add("call", jstr("ufunc::unique_counts(x0).counts"));
      run_case(rec, [&] { put_result(rec, w, "result", ufunc::unique_counts(x.view).counts); });
      return;
    case 4:
      rec.add("call", jstr("ufunc::unique_inverse(x0).inverse_indices"));
      run_case(rec, [&] { put_result(rec, w, "result", ufunc::unique_inverse(x.view).inverse_indices); });
      return;
    case 5:
      rec.add("call", jstr("ufunc::unique_all(x0).indices"));
      run_case(rec, [&] { put_result(rec, w, "result", ufunc::unique_all(x.view).indices); });
      return;
    default: {
      const int nax = nd ? ((ax % nd) + nd) % nd : 0;
      const index_t L = (nd && ax >= -nd && ax < nd) ? s[nax] : 1;
      const index_t k = chance(g, 0.05) ? (chance(g, 0.5) ? L + 1 : -1) : uniform(g, 0, L);
      const bool largest = chance(g, 0.7);
      rec.add("axis", a);
      rec.add("k", std::to_string(k));
      rec.add("largest", largest ? "true" : "false");
      rec.add("call", jstr("ufunc::topk(x0, " + std::to_string(k) + ", " + a + (largest ? ", true)" : ", false)") +
                           (form == 6 ? ".values" : ".indices")));
      run_case(rec, [&] {
        auto t = ufunc::topk(x.view, k, ax, largest);
        if (form == 6) put_result(rec, w, "result", t.values);
        else put_result(rec, w, "result", t.indices);
      });
      return;
    }
  }
}

}  // namespace sort_impl

void category_sort(rng_t& g, writer& w, record& rec) {
  using namespace sort_impl;
  for_dtype(static_cast<int>(uniform(g, 0, n_dtypes - 1)), [&](auto t) { sort_case<decltype(t)>(g, w, rec); });
}

}  // namespace oracle
