// The NumPy oracle's generator: what every category shares. Cases are random
// (seeded per case, so any one case can be rerun alone), built only through the
// public API, and written as one JSON line per case (tests/oracle/README.md
// describes the format) plus a binary file of raw little-endian arrays, which
// tests/oracle/check.py recomputes with NumPy.
#pragma once
#include <ufunc/ufunc.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <limits>
#include <memory>
#include <random>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

namespace oracle {

using ufunc::index_t;
using ufunc::shape;
using rng_t = std::mt19937_64;

// ---------------------------------------------------------------------------
// Element types, by NumPy's names.
template <class T>
const char* dtype_name() {
  if constexpr (std::is_same_v<T, bool>) return "bool";
  else if constexpr (ufunc::detail::is_complex_v<T>) return sizeof(T) == 8 ? "complex64" : "complex128";
  else if constexpr (std::is_floating_point_v<T>) return sizeof(T) == 4 ? "float32" : "float64";
  else if constexpr (std::is_signed_v<T>)
    return sizeof(T) == 1 ? "int8" : sizeof(T) == 2 ? "int16" : sizeof(T) == 4 ? "int32" : "int64";
  else return sizeof(T) == 1 ? "uint8" : sizeof(T) == 2 ? "uint16" : sizeof(T) == 4 ? "uint32" : "uint64";
}

/// The dtypes every category draws from; `for_dtype` calls fn(T{}) for one.
enum dtype_code { f32, f64, i8, u8, i32, i64, b8, n_dtypes };
template <class Fn>
void for_dtype(int code, Fn&& fn) {
  switch (code) {
    case f32: fn(float{}); break;
    case f64: fn(double{}); break;
    case i8: fn(std::int8_t{}); break;
    case u8: fn(std::uint8_t{}); break;
    case i32: fn(std::int32_t{}); break;
    case i64: fn(std::int64_t{}); break;
    default: fn(bool{}); break;
  }
}

// ---------------------------------------------------------------------------
// Random numbers.
inline index_t uniform(rng_t& g, index_t lo, index_t hi) {  // inclusive
  return std::uniform_int_distribution<index_t>(lo, hi)(g);
}
inline bool chance(rng_t& g, double p) { return std::uniform_real_distribution<double>(0, 1)(g) < p; }
template <class C>
auto pick(rng_t& g, const C& c) {
  return c[static_cast<std::size_t>(uniform(g, 0, static_cast<index_t>(c.size()) - 1))];
}

/// How values are drawn: `full` the whole range of an integer type (floats: a
/// few magnitudes with signed zeros, and NaN/inf when `specials`), `bounded`
/// integers small enough that a sum or product of two does not overflow
/// (signed overflow is undefined in C++), `near_one` for products of many
/// elements (no overflow to inf or 0, so the order of a parallel product
/// cannot decide between inf*0 and 0).
enum class values { full, bounded, near_one };

template <class T>
T random_value(rng_t& g, values how, bool specials) {
  if constexpr (std::is_same_v<T, bool>) {
    return chance(g, 0.5);
  } else if constexpr (ufunc::detail::is_complex_v<T>) {  // parts as the part type's (near_one: modulus near 1)
    using P = typename T::value_type;
    if (how == values::near_one) {
      const double r = std::uniform_real_distribution<double>(0.9, 1.1)(g);
      const double a = std::uniform_real_distribution<double>(-3.14159, 3.14159)(g);
      return T(static_cast<P>(r * std::cos(a)), static_cast<P>(r * std::sin(a)));
    }
    const P re = random_value<P>(g, how, specials);
    return T(re, random_value<P>(g, how, specials));
  } else if constexpr (std::is_floating_point_v<T>) {
    if (specials && chance(g, 0.05)) {
      const T s[] = {std::numeric_limits<T>::quiet_NaN(), std::numeric_limits<T>::infinity(),
                     -std::numeric_limits<T>::infinity(), T(0), -T(0)};
      return s[uniform(g, 0, 4)];
    }
    if (how == values::near_one) {
      const double m = std::uniform_real_distribution<double>(0.9, 1.1)(g);
      return static_cast<T>(chance(g, 0.5) ? m : -m);
    }
    if (chance(g, 0.1)) return static_cast<T>(uniform(g, -8, 8));  // ties for min/max/argmin
    return static_cast<T>(std::uniform_real_distribution<double>(-4, 4)(g));
  } else {
    if (how == values::near_one) return static_cast<T>(std::is_signed_v<T> ? uniform(g, -1, 1) : uniform(g, 0, 1));
    index_t lo = static_cast<index_t>(std::numeric_limits<T>::lowest());
    index_t hi = static_cast<index_t>(std::numeric_limits<T>::max());
    if (how == values::bounded && sizeof(T) >= 4) {  // products of two fit
      hi = sizeof(T) == 4 ? (index_t(1) << 15) : (index_t(1) << 31);
      lo = -hi;
    }
    if (chance(g, 0.15)) return static_cast<T>(uniform(g, std::max<index_t>(lo, -3), std::min<index_t>(hi, 3)));
    return static_cast<T>(uniform(g, lo, hi));
  }
}

// ---------------------------------------------------------------------------
// JSON (flat enough to write by hand).
inline std::string jstr(const std::string& s) {
  std::string r = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') r += '\\', r += c;
    else if (static_cast<unsigned char>(c) < 0x20) r += ' ';
    else r += c;
  }
  return r + "\"";
}
template <class I>
std::string jlist(const std::vector<I>& v) {
  std::string r = "[";
  for (std::size_t i = 0; i < v.size(); ++i) r += (i ? "," : "") + std::to_string(v[i]);
  return r + "]";
}
inline std::string jshape(const shape& s) { return jlist(std::vector<index_t>(s.begin(), s.end())); }

/// The output files: `<prefix>.jsonl` (one line per case) and `<prefix>.bin`
/// (the arrays, referred to by byte offset).
class writer {
 public:
  explicit writer(const std::string& prefix)
      : js_(std::fopen((prefix + ".jsonl").c_str(), "w")), bin_(std::fopen((prefix + ".bin").c_str(), "wb")) {
    if (!js_ || !bin_) throw std::runtime_error("oracle: cannot open " + prefix + ".jsonl/.bin for writing");
  }
  ~writer() {
    std::fclose(js_);
    std::fclose(bin_);
  }
  /// Appends host data and returns its JSON descriptor {dtype, shape, off}.
  template <class T>
  std::string put(const std::vector<T>& h, const shape& s) {
    const std::size_t off = pos_;
    if constexpr (std::is_same_v<T, bool>) {
      for (bool b : h) std::fputc(b ? 1 : 0, bin_);
      pos_ += h.size();
    } else {
      if (!h.empty()) std::fwrite(h.data(), sizeof(T), h.size(), bin_);  // data() may be null when empty
      pos_ += h.size() * sizeof(T);
    }
    return std::string("{\"dtype\":\"") + dtype_name<T>() + "\",\"shape\":" + jshape(s) + ",\"off\":" +
           std::to_string(off) + "}";
  }
  void line(const std::string& s) {
    std::fputs(s.c_str(), js_);
    std::fputc('\n', js_);
  }

 private:
  std::FILE* js_;
  std::FILE* bin_;
  std::size_t pos_ = 0;
};

// ---------------------------------------------------------------------------
// Arrays on the build's device target (host memory in a host build).
template <class T>
ufunc::array<T> to_dev(const std::vector<T>& h, const shape& s) {
  if constexpr (std::is_same_v<T, bool>) {  // std::vector<bool> has no data()
    std::unique_ptr<bool[]> tmp(new bool[h.size() + 1]);
    for (std::size_t i = 0; i < h.size(); ++i) tmp[i] = h[i];
    return ufunc::to_device(tmp.get(), s);
  } else {
    return ufunc::to_device(h, s);
  }
}

/// One slice of a view chain: `v.sliced(axis, start, stop, step)`.
struct slice_spec {
  int axis;
  index_t start, stop, step;
};

/// An input (or out) operand: a contiguous base array of random values, then
/// slices (Python semantics) and a permutation of the axes, as
/// `base.view().sliced(...)....permuted(perm)` (`transposed()` when perm
/// reverses the axes). The checker rebuilds the same view with NumPy indexing,
/// so the view arithmetic itself is checked too.
template <class T>
struct operand {
  std::vector<T> host;
  ufunc::array<T> base;
  std::vector<slice_spec> slices;
  std::vector<int> perm;  // empty: none
  ufunc::array_view<T> view;

  void build() {
    view = base.view();
    for (const auto& s : slices) view = view.sliced(s.axis, s.start, s.stop, s.step);
    if (!perm.empty()) {
      bool reversed = true;
      for (std::size_t k = 0; k < perm.size(); ++k) reversed = reversed && perm[k] == static_cast<int>(perm.size() - 1 - k);
      view = reversed ? view.transposed() : view.permuted(perm);
    }
  }
  /// JSON of the construction (base data written to w).
  std::string json(writer& w) const {
    std::string s = "{\"base\":" + w.put(host, base.shape()) + ",\"slices\":[";
    for (std::size_t i = 0; i < slices.size(); ++i)
      s += (i ? "," : "") + jlist(std::vector<index_t>{slices[i].axis, slices[i].start, slices[i].stop, slices[i].step});
    s += "],\"perm\":" + (perm.empty() ? std::string("null") : jlist(perm)) + "}";
    return s;
  }
  /// The C++ expression that builds the view from `name`'s base, for reproducers.
  std::string cpp(const std::string& name) const {
    std::string s = name + ".view()";
    for (const auto& sl : slices)
      s += ".sliced(" + std::to_string(sl.axis) + ", " + std::to_string(sl.start) + ", " + std::to_string(sl.stop) +
           ", " + std::to_string(sl.step) + ")";
    if (!perm.empty()) {
      std::string p;
      for (std::size_t i = 0; i < perm.size(); ++i) p += (i ? ", " : "") + std::to_string(perm[i]);
      s += ".permuted({" + p + "})";
    }
    return s;
  }
};

/// An operand whose view has exactly the logical shape `want`, with a random
/// layout: each axis maybe sliced with a step (+-1..3, from an offset, start and
/// stop written in either sign when Python reads them the same), and maybe the
/// axes permuted. `layout` false: contiguous, no slices.
template <class T>
operand<T> make_operand(rng_t& g, const shape& want, values how, bool specials, bool layout = true) {
  operand<T> op;
  const int r = want.size();
  std::vector<int> perm(static_cast<std::size_t>(r));
  for (int i = 0; i < r; ++i) perm[static_cast<std::size_t>(i)] = i;
  if (layout && r >= 2 && chance(g, 0.3)) {
    std::shuffle(perm.begin(), perm.end(), g);
    op.perm = perm;
  }
  // Base-view shape before the permutation: pre[perm[k]] = want[k].
  std::vector<index_t> pre(static_cast<std::size_t>(r)), base_dims(static_cast<std::size_t>(r));
  for (int k = 0; k < r; ++k) pre[static_cast<std::size_t>(perm[static_cast<std::size_t>(k)])] = want[k];
  for (int a = 0; a < r; ++a) {
    const index_t m = pre[static_cast<std::size_t>(a)];
    if (!layout || !chance(g, 0.35)) {
      base_dims[static_cast<std::size_t>(a)] = m;
      continue;
    }
    index_t step = uniform(g, 1, 3) * (chance(g, 0.4) ? -1 : 1);
    const index_t lead = uniform(g, 0, 2), tail = uniform(g, 0, 2);
    const index_t span = m == 0 ? 0 : (m - 1) * (step < 0 ? -step : step) + 1;
    const index_t n = lead + span + tail;
    base_dims[static_cast<std::size_t>(a)] = n;
    index_t start, stop;
    if (step > 0) {
      start = lead;
      stop = m == 0 ? lead : start + (m - 1) * step + 1 + uniform(g, 0, step - 1);
      if (stop > n) stop = n;
    } else {
      start = n - 1 - lead;  // walks down from here
      stop = m == 0 ? start : start + (m - 1) * step - 1 - uniform(g, 0, -step - 1);
      if (stop < 0 && m > 0) stop = -n - 1 - uniform(g, 0, 3);  // before the first element: a negative stop would wrap
    }
    if (start >= 0 && start < n && chance(g, 0.3)) start -= n;
    if (stop >= 0 && stop <= n && chance(g, 0.3) && stop - n < 0) stop -= n;
    op.slices.push_back({a, start, stop, step});
  }
  const shape bs(base_dims);
  op.host.resize(static_cast<std::size_t>(bs.count()));
  for (std::size_t i = 0; i < op.host.size(); ++i) op.host[i] = random_value<T>(g, how, specials);
  op.base = to_dev(op.host, bs);
  op.build();
  if (op.view.shape() != want)
    throw std::logic_error("oracle: operand construction gave " + op.view.shape().str() + ", wanted " + want.str());
  return op;
}

/// A random result shape: rank 0..max_rank, dims mostly 1..5, sometimes 0; with
/// `big`, one dim long enough that the host backend splits the work into chunks
/// (2^14 elements) on several threads.
inline shape random_shape(rng_t& g, int max_rank, bool big) {
  const int r = static_cast<int>(uniform(g, 0, max_rank));
  std::vector<index_t> d(static_cast<std::size_t>(r));
  for (auto& x : d) x = chance(g, 0.06) ? 0 : chance(g, 0.2) ? 1 : uniform(g, 2, 5);
  if (big && r > 0) {
    for (auto& x : d) x = std::max<index_t>(x, 1);
    auto& x = d[static_cast<std::size_t>(uniform(g, 0, r - 1))];
    x = 1;
    x = std::max<index_t>(1, uniform(g, 20000, 40000) / shape(d).count());
  }
  return shape(d);
}

/// Shapes that broadcast to `s`: each maybe drops leading dims and turns dims
/// into 1; with `clash`, one dim of one of them is made incompatible.
inline std::vector<shape> broadcast_operands(rng_t& g, const shape& s, int n, bool clash) {
  std::vector<shape> out;
  for (int i = 0; i < n; ++i) {
    const int drop = static_cast<int>(uniform(g, 0, s.size()));
    std::vector<index_t> d(s.begin() + (chance(g, 0.5) ? 0 : drop), s.end());
    for (auto& x : d)
      if (chance(g, 0.25)) x = 1;
    out.push_back(shape(d));
  }
  if (clash) {
    auto& t = out[static_cast<std::size_t>(uniform(g, 0, n - 1))];
    std::vector<index_t> d(t.begin(), t.end());
    if (d.empty()) d.push_back(0);
    auto& x = d[static_cast<std::size_t>(uniform(g, 0, static_cast<index_t>(d.size()) - 1))];
    x = x + 2;  // differs from x and is never 1 (x >= 0); unless the result dim is x+2 too, a clash
    t = shape(d);
  }
  return out;
}

// ---------------------------------------------------------------------------
// One case's record.
struct record {
  std::string fields;  // JSON members written so far, comma-separated
  void add(const std::string& key, const std::string& json) {
    fields += (fields.empty() ? "" : ",") + jstr(key) + ":" + json;
  }
};

/// Runs `call` (which fills `rec` with "result"/"out" members); an exception
/// becomes an "error" member {type, what}. Typed library errors are named by
/// their class.
template <class Fn>
void run_case(record& rec, Fn&& call) {
  try {
    call();
  } catch (const ufunc::shape_error& e) {
    rec.add("error", "{\"type\":\"shape_error\",\"what\":" + jstr(e.what()) + "}");
  } catch (const ufunc::value_error& e) {
    rec.add("error", "{\"type\":\"value_error\",\"what\":" + jstr(e.what()) + "}");
  } catch (const ufunc::out_of_memory& e) {
    rec.add("error", "{\"type\":\"out_of_memory\",\"what\":" + jstr(e.what()) + "}");
  } catch (const std::exception& e) {
    rec.add("error", "{\"type\":\"std::exception\",\"what\":" + jstr(e.what()) + "}");
  }
}

/// Writes an array (or view of one: copied to a contiguous array first) as the
/// record member `key`.
template <class A>
void put_result(record& rec, writer& w, const std::string& key, const A& a) {
  rec.add(key, w.put(a.to_host(), a.shape()));
}
template <class T>
void put_scalar(record& rec, writer& w, const std::string& key, T v) {
  rec.add(key, w.put(std::vector<T>{v}, shape{}));
}

/// A category: runs case `index` of `seed` and writes one line.
using category_fn = std::function<void(rng_t&, writer&, record&)>;

}  // namespace oracle
