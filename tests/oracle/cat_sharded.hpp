// The sharded category's cases (cat_sharded.cpp), shared by the three files that
// instantiate them for a few dtypes each (one file for all seven took about 6
// minutes of g++ at -O1 or -O3, alone at the end of the build).
#pragma once

#include "oracle.hpp"

namespace oracle {
namespace sharded_impl {

using host = ufunc::target::host;

/// The elements of a sharded array, gathered shard by shard (sharded_array<bool>
/// has no to_host: std::vector<bool> is not contiguous).
template <class S>
void put_sharded(record& rec, writer& w, const std::string& key, const S& a) {
  using T = typename S::value_type;
  std::vector<T> h;
  for (int i = 0; i < a.num_shards(); ++i) {
    const auto part = a.shard(i).to_host();
    h.insert(h.end(), part.begin(), part.end());
  }
  rec.add(key, w.put(h, a.shape()));
}

/// A sharded array of host data `h` (shape s) over `d`: split evenly, or into
/// `rows` (when not empty) with from_shards.
template <class T>
ufunc::sharded_array<T, host> make_sharded(const std::vector<T>& h, const shape& s, const ufunc::device_set& d,
                                           const std::vector<index_t>& rows) {
  std::unique_ptr<T[]> data(new T[h.size() + 1]);
  for (std::size_t i = 0; i < h.size(); ++i) data[i] = h[i];
  if (rows.empty()) return ufunc::shard<host>(data.get(), s, d);
  const index_t row = s[0] > 0 ? s.count() / s[0] : 0;
  std::vector<ufunc::array<T, host>> parts;
  index_t r0 = 0;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    std::vector<index_t> dims(s.begin(), s.end());
    dims[0] = rows[i];
    parts.push_back(ufunc::asarray<host>(data.get() + r0 * row, shape(dims)));
    r0 += rows[i];
  }
  return ufunc::sharded_array<T, host>::from_shards(d, std::move(parts));
}

template <class R, class S>
void reduce_forms(rng_t& g, writer& w, record& rec, const std::string& name, const R& red, const S& x,
                  const std::string& arg = "x0") {
  const int nd = x.ndim();
  // form 0: whole array -> host value; 1: axes; 2: axes + keepdims; 3: keepdims alone (all axes)
  const int form = static_cast<int>(uniform(g, 0, 3));
  std::vector<int> ax;
  if (form == 1 || form == 2) {
    for (int a = 0; a < nd; ++a)
      if (chance(g, a == 0 ? 0.7 : 0.5)) ax.push_back(chance(g, 0.3) ? a - nd : a);
    std::shuffle(ax.begin(), ax.end(), g);
    if (chance(g, 0.04)) ax.push_back(static_cast<int>(uniform(g, -nd - 1, nd)));  // repeated or out of range
    rec.add("axes", jlist(ax));
  }
  std::string axs;
  for (std::size_t i = 0; i < ax.size(); ++i) axs += (i ? "," : "") + std::to_string(ax[i]);
  rec.add("form", std::to_string(form));
  const std::string head = name + "(" + arg;  // x0: the sharded array (see "shards")
  switch (form) {
    case 0:
      rec.add("call", jstr(head + ")"));
      run_case(rec, [&] { put_scalar(rec, w, "result", red(x)); });
      break;
    case 1:
      rec.add("call", jstr(head + ", ufunc::axes{" + axs + "})"));
      run_case(rec, [&] { put_sharded(rec, w, "result", red(x, ufunc::axes(ax))); });
      break;
    case 2:
      rec.add("call", jstr(head + ", ufunc::axes{" + axs + "}, ufunc::keepdims)"));
      run_case(rec, [&] { put_sharded(rec, w, "result", red(x, ufunc::axes(ax), ufunc::keepdims)); });
      break;
    default:
      rec.add("call", jstr(head + ", ufunc::keepdims)"));
      run_case(rec, [&] { put_sharded(rec, w, "result", red(x, ufunc::keepdims)); });
      break;
  }
}

/// A sum of a sharded expression, `ufunc::sum(add.lazy(x, x), ...)`.
template <class T, class S>
void lazy_forms(rng_t& g, writer& w, record& rec, const S& x) {
  const auto add = ufunc::vectorize<host>([] UFUNC_HD(T a, T b) { return static_cast<T>(a + b); });
  const auto sum_of_sum = [&](const S& a, auto&&... c) {
    return ufunc::sum(add.lazy(a, a), std::forward<decltype(c)>(c)...);
  };
  reduce_forms(g, w, rec, "ufunc::sum", sum_of_sum, x, "add.lazy(x0, x0)");
}

template <class T>
void sharded_case(rng_t& g, writer& w, record& rec) {
  const int op = static_cast<int>(uniform(g, 0, 9));
  // Shape: rank 1..4, zero-size dims common (a third of the cases have one),
  // sometimes 20,000-40,000 elements (several host chunks per shard).
  const int rank = static_cast<int>(uniform(g, 1, 4));
  std::vector<index_t> dims(static_cast<std::size_t>(rank));
  const bool big = chance(g, 0.03) && op != 1;  // a long product would leave the float range
  for (auto& v : dims) v = chance(g, 0.12) ? 0 : chance(g, 0.2) ? 1 : uniform(g, 2, 5);
  if (big) {
    for (auto& v : dims) v = std::max<index_t>(v, 1);
    dims[0] = std::max<index_t>(1, uniform(g, 20000, 40000) / (shape(dims).count() / dims[0]));
  }
  const shape s(dims);
  // Shards: 1..4, labels 0..3 in a random order; split evenly or any way.
  const int nshards = static_cast<int>(uniform(g, 1, 4));
  std::vector<int> ids;
  for (int i = 0; i < 4; ++i) ids.push_back(i);
  std::shuffle(ids.begin(), ids.end(), g);
  ids.resize(static_cast<std::size_t>(nshards));
  const ufunc::device_set d(ids);
  std::vector<index_t> rows;
  if (chance(g, 0.5)) {
    rows.assign(static_cast<std::size_t>(nshards), 0);
    for (index_t r = 0; r < s[0]; ++r) rows[static_cast<std::size_t>(uniform(g, 0, nshards - 1))] += 1;
  }
  // Values: products near one; no NaN for the custom op (it does not propagate
  // NaN as np.maximum does); integer sums bounded (no signed overflow in C++).
  const values how = op == 1 ? values::near_one
                     : (op == 0 || op == 4 || op == 5 || op == 6 || op == 9) ? values::bounded
                                                                             : values::full;
  const bool specials = op != 7 && op != 8 && chance(g, 0.3);
  std::vector<T> h(static_cast<std::size_t>(s.count()));
  for (std::size_t i = 0; i < h.size(); ++i) h[i] = random_value<T>(g, how, specials);
  if constexpr (std::is_same_v<T, std::int64_t>)
    if (op == 5)
      for (auto& v : h) v = static_cast<T>(v % 100000);  // squares summed stay in range
  const auto x = make_sharded(h, s, d, rows);
  rec.add("dtype", jstr(dtype_name<T>()));
  rec.add("inputs", "[{\"base\":" + w.put(h, s) + ",\"slices\":[],\"perm\":null}]");
  rec.add("devices", jlist(ids));
  rec.add("shards", jlist(x.rows()));
  const T init = random_value<T>(g, values::bounded, false);
  auto larger = [] UFUNC_HD(T a, T b) { return a > b ? a : b; };
  switch (op) {
    case 0: rec.add("op", jstr("sum")); reduce_forms(g, w, rec, "ufunc::sum", ufunc::sum, x); break;
    case 1: rec.add("op", jstr("prod")); reduce_forms(g, w, rec, "ufunc::prod", ufunc::prod, x); break;
    case 2: rec.add("op", jstr("min")); reduce_forms(g, w, rec, "ufunc::min", ufunc::min, x); break;
    case 3: rec.add("op", jstr("max")); reduce_forms(g, w, rec, "ufunc::max", ufunc::max, x); break;
    case 4: rec.add("op", jstr("mean")); reduce_forms(g, w, rec, "ufunc::mean", ufunc::mean, x); break;
    case 5:
      rec.add("op", jstr("map_reduce_square"));
      reduce_forms(g, w, rec, "ufunc::map_reduce(T(v * v), ufunc::plus{})",
                   ufunc::map_reduce([] UFUNC_HD(T v) { return static_cast<T>(v * v); }, ufunc::plus{}), x);
      break;
    case 6:
      rec.add("op", jstr("reduce_plus_init"));
      put_scalar(rec, w, "init", init);
      reduce_forms(g, w, rec, "ufunc::reduce(ufunc::plus{}, init)", ufunc::reduce(ufunc::plus{}, init), x);
      break;
    case 7:
      rec.add("op", jstr("reduce_larger_init"));
      put_scalar(rec, w, "init", init);
      reduce_forms(g, w, rec, "ufunc::reduce(larger, init)", ufunc::reduce(larger, init), x);
      break;
    case 8:
      rec.add("op", jstr("reduce_larger"));
      reduce_forms(g, w, rec, "ufunc::reduce(larger)", ufunc::reduce(larger), x);
      break;
    default:
      rec.add("op", jstr("lazy_sum"));
      lazy_forms<T>(g, w, rec, x);
      break;
  }
}

/// sharded_case for the dtype `code`, one function per file (cat_sharded*.cpp).
void case_float(int code, rng_t& g, writer& w, record& rec);   // f32, f64
void case_narrow(int code, rng_t& g, writer& w, record& rec);  // i8, u8, i32
void case_wide(int code, rng_t& g, writer& w, record& rec);    // i64, b8

}  // namespace sharded_impl
}  // namespace oracle
