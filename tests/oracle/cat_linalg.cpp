// Categories "matmul" (float, double; numpy.matmul's rules: 1-D promotion,
// broadcast stacks, any view layout), "transpose" (every dtype; reversed axes or
// a permutation, negative axes allowed, sometimes invalid), "sliced" (chains of
// sliced/transposed/permuted views with moderate arguments, materialised by an
// identity ufunc) and "sliced_extreme" (arguments near the 64-bit limits).
#include <functional>

#include "oracle.hpp"

namespace oracle {
namespace linalg_impl {

template <class T>
void matmul_case(rng_t& g, writer& w, record& rec) {
  const bool big = chance(g, 0.05);
  auto dim = [&] { return big ? uniform(g, 1, 48) : chance(g, 0.08) ? 0 : uniform(g, 1, 6); };
  const index_t m = dim(), k = dim(), n = dim();
  const int ra = static_cast<int>(uniform(g, 1, 4)), rb = static_cast<int>(uniform(g, 1, 4));
  const shape batch = random_shape(g, 2, false);
  auto stack = [&](int r, index_t d0, index_t d1) {  // leading dims: a suffix of batch, some 1
    std::vector<index_t> d;
    for (int i = std::max(0, batch.size() - (r - 2)); i < batch.size(); ++i) d.push_back(chance(g, 0.3) ? 1 : batch[i]);
    d.push_back(d0);
    d.push_back(d1);
    return d;
  };
  std::vector<index_t> da = ra == 1 ? std::vector<index_t>{k} : stack(ra, m, k);
  std::vector<index_t> db = rb == 1 ? std::vector<index_t>{k} : stack(rb, k, n);
  if (chance(g, 0.05)) db[rb == 1 ? 0 : db.size() - 2] += 1;  // inner dims differ
  auto a = make_operand<T>(g, shape(da), values::full, chance(g, 0.1));
  auto b = make_operand<T>(g, shape(db), values::full, chance(g, 0.1));
  rec.add("op", jstr("matmul"));
  rec.add("dtype", jstr(dtype_name<T>()));
  rec.add("inputs", "[" + a.json(w) + "," + b.json(w) + "]");
  rec.add("call", jstr("ufunc::matmul(x0, x1)"));
  run_case(rec, [&] { put_result(rec, w, "result", ufunc::matmul(a.view, b.view)); });
}

template <class T>
void transpose_case(rng_t& g, writer& w, record& rec) {
  const shape s = random_shape(g, 5, chance(g, 0.03));
  auto x = make_operand<T>(g, s, values::full, true);
  rec.add("op", jstr("transpose"));
  rec.add("dtype", jstr(dtype_name<T>()));
  rec.add("inputs", "[" + x.json(w) + "]");
  if (chance(g, 0.3)) {
    rec.add("call", jstr("ufunc::transpose(x0)"));
    run_case(rec, [&] { put_result(rec, w, "result", ufunc::transpose(x.view)); });
    return;
  }
  const int nd = s.size();
  std::vector<int> p(static_cast<std::size_t>(nd));
  for (int i = 0; i < nd; ++i) p[static_cast<std::size_t>(i)] = i;
  std::shuffle(p.begin(), p.end(), g);
  for (auto& a : p)
    if (chance(g, 0.3)) a -= nd;
  if (chance(g, 0.05)) {  // invalid: repeated, out of range or wrong length
    if (!p.empty() && chance(g, 0.5)) p[0] = static_cast<int>(uniform(g, -nd - 1, nd));
    else p.push_back(static_cast<int>(uniform(g, -nd, nd)));
  }
  rec.add("axes", jlist(p));
  std::string ps;
  for (std::size_t i = 0; i < p.size(); ++i) ps += (i ? ", " : "") + std::to_string(p[i]);
  rec.add("call", jstr("ufunc::transpose(x0, {" + ps + "})"));
  run_case(rec, [&] { put_result(rec, w, "result", ufunc::transpose(x.view, p)); });
}

struct copy_f {
  template <class T> UFUNC_HD T operator()(T a) const { return a; }
};

/// A view chain with explicit slice arguments drawn by `arg(n)` (n: the dim).
// arg is a std::function, not a template parameter: nvcc refuses a local lambda's
// type in the template arguments of a function that holds an extended lambda.
template <class T>
void sliced_case(rng_t& g, writer& w, record& rec, const std::function<index_t(index_t, int)>& arg) {
  const shape s = random_shape(g, 4, false);
  auto x = make_operand<T>(g, s, values::full, false, false);  // plain base; the chain is the case
  rec.add("op", jstr("sliced"));
  rec.add("dtype", jstr(dtype_name<T>()));
  const int steps = static_cast<int>(uniform(g, 1, 3));
  std::vector<std::string> chain;  // JSON: ["slice",axis,start,stop,step] / ["transpose"] / ["permute",[...]]
  std::string cpp = "x0.view()";
  run_case(rec, [&] {
    ufunc::array_view<T> v = x.base.view();
    try {
      for (int i = 0; i < steps; ++i) {
        const int nd = v.ndim();
        if (nd >= 2 && chance(g, 0.2)) {
          if (chance(g, 0.5)) {
            chain.push_back("[\"transpose\"]");
            cpp += ".transposed()";
            v = v.transposed();
          } else {
            std::vector<int> p(static_cast<std::size_t>(nd));
            for (int a = 0; a < nd; ++a) p[static_cast<std::size_t>(a)] = a;
            std::shuffle(p.begin(), p.end(), g);
            chain.push_back("[\"permute\"," + jlist(p) + "]");
            { std::string q = jlist(p); q.front() = '{'; q.back() = '}'; cpp += ".permuted(" + q + ")"; }
            v = v.permuted(p);
          }
          continue;
        }
        int axis = static_cast<int>(chance(g, 0.03) ? uniform(g, -nd - 1, nd) : nd ? uniform(g, -nd, nd - 1) : 0);
        const index_t n = nd ? v.shape()[(axis % nd + nd) % nd] : 0;
        index_t start = arg(n, 0), stop = arg(n, 1), step = arg(n, 2);
        chain.push_back("[\"slice\"," + std::to_string(axis) + "," + std::to_string(start) + "," +
                        std::to_string(stop) + "," + std::to_string(step) + "]");
        cpp += ".sliced(" + std::to_string(axis) + ", " + std::to_string(start) + ", " + std::to_string(stop) + ", " +
               std::to_string(step) + ")";
        v = v.sliced(axis, start, stop, step);
      }
    } catch (...) {
      rec.add("inputs", "[" + x.json(w) + "]");
      std::string c;
      for (std::size_t i = 0; i < chain.size(); ++i) c += (i ? "," : "") + chain[i];
      rec.add("chain", "[" + c + "]");
      rec.add("call", jstr(cpp));
      throw;
    }
    rec.add("inputs", "[" + x.json(w) + "]");
    std::string c;
    for (std::size_t i = 0; i < chain.size(); ++i) c += (i ? "," : "") + chain[i];
    rec.add("chain", "[" + c + "]");
    rec.add("call", jstr("ufunc::vectorize(copy)(" + cpp + ")"));
    rec.add("view_shape", jshape(v.shape()));
    const auto f = ufunc::vectorize([] UFUNC_HD(T a) { return copy_f{}(a); });
    put_result(rec, w, "result", f(v));
  });
}

}  // namespace linalg_impl
using namespace linalg_impl;

void category_matmul(rng_t& g, writer& w, record& rec) {
  if (chance(g, 0.5)) matmul_case<float>(g, w, rec);
  else matmul_case<double>(g, w, rec);
}
void category_transpose(rng_t& g, writer& w, record& rec) {
  for_dtype(static_cast<int>(uniform(g, 0, n_dtypes - 1)), [&](auto t) { transpose_case<decltype(t)>(g, w, rec); });
}
void category_sliced(rng_t& g, writer& w, record& rec) {
  auto arg = [&g](index_t n, int which) -> index_t {
    if (which == 2) return chance(g, 0.03) ? 0 : uniform(g, 1, 4) * (chance(g, 0.4) ? -1 : 1);
    return uniform(g, -2 * n - 3, 2 * n + 3);
  };
  for_dtype(static_cast<int>(uniform(g, 0, n_dtypes - 1)), [&](auto t) { sliced_case<decltype(t)>(g, w, rec, arg); });
}
void category_sliced_extreme(rng_t& g, writer& w, record& rec) {
  auto arg = [&g](index_t n, int which) -> index_t {
    const index_t big = std::numeric_limits<index_t>::max();
    const index_t pool[] = {big, -big, big - 1, -big + 1, std::numeric_limits<index_t>::min(), index_t(1) << 62,
                            -(index_t(1) << 62), n, -n, n + 1, -n - 1, 0, 1, -1, 2, -2};
    index_t v = pool[uniform(g, 0, 15)];
    if (which == 2 && v == 0) v = -1;
    return v;
  };
  sliced_case<float>(g, w, rec, arg);
}

}  // namespace oracle
