// Lazy expressions (expression.hpp, lazy.hpp): `f.lazy(...)`, `ufunc::lazy(x)` and
// the C++ operators build a tree without running anything; `ufunc::evaluate`,
// eager calls and reductions run it fused. Random trees are compared with eager
// evaluation of the same calls (each node a ufunc call into an intermediate
// array), reductions of expressions with the same reductions of the eagerly
// evaluated array, the rest with host loops; on every target of the build
// (test::for_each_target), with fresh random data (seeds in INFO).
//
// Random trees: C++ fixes an expression's type at compile time, so the
// randomness is chosen at run time: node functions are function objects that
// switch on an op code (unary, binary, ternary; identities and projections
// among them, so the depth that matters varies from 1 to 5), the leaves are
// views of one type whose layout is random (contiguous, stepped, padded,
// permuted, reversed, zero strides, misaligned; ranks 0 to 4 with size-1 and
// size-0 dims broadcasting), and the tree templates are written once for both
// evaluators (lazy_builder and eager_builder).
//
// Compile time: every distinct expression type instantiates the elementwise (or
// reduction) kernels once more under nvcc, and each kernel variant unrolls the
// functor several times: the node functions are therefore not inlined
// (LAZY_TEST_NOINLINE), and this file keeps the types few: one random tree per
// element type, one eager node functor per element type, expression types
// shared between cases, host references instead of eager reductions. Add
// run-time cases to the existing trees rather than new tree types. Under nvcc
// the random trees run on both targets and the rest on the host
// (for_each_tree_target): 2.5 minutes on 2 cores; every case on both targets
// would be 5.8.
#include "test_support.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <deque>
#include <limits>
#include <numeric>
#include <random>
#include <sstream>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

using ufunc::index_t;
using ufunc::shape;

namespace lazy_test {

// ---------------------------------------------------------------------------
// Node functions: bounded, so that fused and eager results can be compared tightly.
//
// Floats live in [-1, 1] (leaves and every node function's output), ints in
// [-1000, 1000] (K = 1000; products are divided by K, so nothing overflows).
// Every function is 2-Lipschitz there (continuous: no division by a computed
// value, a select only on a leaf, see ternary_code), so a rounding difference of
// the fused kernel (the device compiler may contract a product of one node with
// a sum of its parent into one fma) grows at most 2x per level: 5 levels of float
// rounding stay below 64 * 2^-24 = 4e-6. The operators at the root scale this by
// at most 6. Ints are exact.

// Not inlined (see the top): a tree of inlined switches, unrolled in every
// kernel variant, took nvcc over 20 minutes. Fused and eager evaluation then
// call the same node code; the library's operators still inline.
#if defined(__CUDACC__)
#  define LAZY_TEST_NOINLINE __noinline__
#else
#  define LAZY_TEST_NOINLINE
#endif

template <class T>
inline constexpr bool is_int = std::is_integral_v<T>;
template <class T>
inline constexpr double K = is_int<T> ? 1000.0 : 1.0;

UFUNC_HD inline float root(float v) { return sqrtf(v); }
UFUNC_HD inline double root(double v) { return sqrt(v); }

template <class T>
UFUNC_HD T half(T v) {
  if constexpr (is_int<T>)
    return static_cast<T>(v / 2);
  else
    return v * T(0.5);
}
template <class T>
UFUNC_HD T scaled_mul(T a, T b) {
  if constexpr (is_int<T>)
    return static_cast<T>(a * b / 1000);
  else
    return a * b;
}

inline constexpr int unary_ops = 6, binary_ops = 7, ternary_ops = 3, arith_ops = 4;

/// Unary: negate (as the operator), abs, a square root (ints: a third), a
/// square, an affine map, the identity.
template <class T>
struct unary_fn {
  int op;
  UFUNC_HD LAZY_TEST_NOINLINE T operator()(T x) const {
    const T a = x < T(0) ? T(-x) : x;
    switch (op) {
      case 0: return T(-x);
      case 1: return a;
      case 2:
        if constexpr (is_int<T>)
          return static_cast<T>(x / 3);
        else
          return root(a + T(1)) - T(1);
      case 3: return scaled_mul(x, x);
      case 4:
        if constexpr (is_int<T>)
          return static_cast<T>(x / 2 + 250);
        else
          return x * T(0.5) + T(0.25);
      default: return x;
    }
  }
};
/// Binary: half sum, half difference, product, min, max, either argument.
template <class T>
struct binary_fn {
  int op;
  UFUNC_HD LAZY_TEST_NOINLINE T operator()(T a, T b) const {
    switch (op) {
      case 0: return half<T>(a + b);
      case 1: return half<T>(a - b);
      case 2: return scaled_mul(a, b);
      case 3: return a < b ? a : b;
      case 4: return a < b ? b : a;
      case 5: return a;
      default: return b;
    }
  }
};
/// Ternary: a fused multiply-add (halved), the median, a where-like select.
template <class T>
struct ternary_fn {
  int op;
  UFUNC_HD LAZY_TEST_NOINLINE T operator()(T a, T b, T c) const {
    switch (op) {
      case 0: return half<T>(scaled_mul(a, b) + c);
      case 1: {
        const T lo = a < b ? a : b, hi = a < b ? b : a;
        const T m = hi < c ? hi : c;
        return lo < m ? m : lo;
      }
      default: return a > T(0) ? b : c;
    }
  }
};
/// The eager evaluator's one functor (one kernel instantiation per element type):
/// node kind 0 unary, 1 binary, 2 ternary, 3 the operators + - * / on (a, b);
/// arguments a node does not take are 0-d arrays.
template <class T>
struct any_node_fn {
  int kind, op;
  UFUNC_HD LAZY_TEST_NOINLINE T operator()(T a, T b, T c) const {
    switch (kind) {
      case 0: return unary_fn<T>{op}(a);
      case 1: return binary_fn<T>{op}(a, b);
      case 2: return ternary_fn<T>{op}(a, b, c);
      default:
        switch (op) {
          case 0: return static_cast<T>(a + b);
          case 1: return static_cast<T>(a - b);
          case 2: return static_cast<T>(a * b);
          default: return static_cast<T>(a / b);
        }
    }
  }
};

// ---------------------------------------------------------------------------
// Tolerances and comparisons.

/// Fused and eager results agree within tol * (1 + |want|) (magnitudes are
/// small by construction; see the node functions).
template <class T>
inline constexpr double tol = std::is_same_v<T, float> ? 1e-5 : (std::is_same_v<T, double> ? 1e-12 : 0.0);

template <class T>
bool near(T got, T want, double t = tol<T>) {
  if constexpr (is_int<T>) {
    return got == want;
  } else {
    const double g = static_cast<double>(got), w = static_cast<double>(want);
    return std::fabs(g - w) <= t * (1.0 + std::fabs(w));  // false for NaN
  }
}

template <class T>
void expect_near(const std::vector<T>& got, const std::vector<T>& want, double t = tol<T>) {
  REQUIRE(got.size() == want.size());
  std::size_t bad = 0, first = 0;
  for (std::size_t i = 0; i < got.size(); ++i)
    if (!near(got[i], want[i], t)) {
      if (!bad) first = i;
      ++bad;
    }
  INFO("mismatches " << bad << " of " << got.size() << "; first at " << first << ": got "
                     << (bad ? static_cast<double>(got[first]) : 0.0) << ", want "
                     << (bad ? static_cast<double>(want[first]) : 0.0) << " (tolerance " << t << ")");
  CHECK(bad == 0);
}

/// Bound on |got - exact| for a sum of n values (each within the elementwise
/// tolerance of the eager value) in tree order: (log2 n + 2) eps sum|x| (the
/// tree bound of test_reduce), doubled for margin, plus n elementwise tolerances.
template <class T>
double sum_bound(std::size_t n, double abs_sum) {
  if constexpr (is_int<T>) {
    return 0.0;
  } else {
    const double eps = std::numeric_limits<T>::epsilon();
    const double lg = std::ceil(std::log2(std::max<double>(2.0, static_cast<double>(n))));
    return 2.0 * (lg + 2.0) * eps * abs_sum + tol<T> * (static_cast<double>(n) + abs_sum);
  }
}

// ---------------------------------------------------------------------------
// Random shapes and layouts.

/// Where a view's elements live in its base array: element (i0, i1, ...) at
/// base[offset + sum(i_k * strides_k)].
struct layout {
  std::vector<index_t> dims, strides;
  index_t offset = 0, base = 0;  // base: elements of the base array
  test::ref_operand ref() const { return {dims, strides, offset}; }
  std::string str() const {
    std::string s = test::dims_str(dims) + " strides (";
    for (std::size_t k = 0; k < strides.size(); ++k) s += (k ? "," : "") + std::to_string(strides[k]);
    return s + ") offset " + std::to_string(offset);
  }
};

/// A random layout of `dims`: contiguous, stepped and padded, permuted, or all
/// of these with reversed dims and (inputs only) zero strides, misaligned.
inline layout random_layout(const std::vector<index_t>& dims, std::mt19937_64& rng, bool zero_strides) {
  layout l;
  l.dims = dims;
  const std::size_t r = dims.size();
  l.strides = test::row_major(dims);
  l.base = test::count_of(dims);
  const int kind = static_cast<int>(rng() % 4);  // 0 contiguous, 1 stepped, 2 permuted, 3 everything
  if (kind == 0 || l.base == 0) return l;
  std::vector<index_t> step(r, 1), ext(r), pst(r);
  std::vector<bool> rev(r, false), zero(r, false);
  std::vector<std::size_t> order(r);
  std::iota(order.begin(), order.end(), std::size_t(0));
  if (kind != 2)
    for (auto& s : step) s = 1 + static_cast<index_t>(rng() % 3);
  if (kind != 1) std::shuffle(order.begin(), order.end(), rng);
  if (kind == 3)
    for (std::size_t k = 0; k < r; ++k) {
      rev[k] = rng() % 2;
      zero[k] = zero_strides && dims[k] > 1 && rng() % 4 == 0;
    }
  for (std::size_t k = 0; k < r; ++k)
    ext[k] = zero[k] ? 1 : (dims[k] - 1) * step[k] + 1 + (kind == 1 ? static_cast<index_t>(rng() % 2) : 0);
  index_t s = 1;
  for (std::size_t j = r; j-- > 0;) {
    pst[order[j]] = s;
    s *= ext[order[j]];
  }
  l.offset = static_cast<index_t>(rng() % 3);  // a misaligned start
  l.base = s + l.offset;
  for (std::size_t k = 0; k < r; ++k) {
    l.strides[k] = zero[k] ? 0 : pst[k] * step[k] * (rev[k] ? -1 : 1);
    if (rev[k] && !zero[k]) l.offset += (dims[k] - 1) * step[k] * pst[k];
  }
  return l;
}

/// The elements of a layout, row-major, from its base's host copy.
template <class T>
std::vector<T> gather(const std::vector<T>& base, const layout& l) {
  const index_t n = test::count_of(l.dims);
  std::vector<T> r(static_cast<std::size_t>(n));
  for (index_t i = 0; i < n; ++i)
    r[static_cast<std::size_t>(i)] = base[static_cast<std::size_t>(test::bcast_offset(test::unravel(i, l.dims), l.ref()))];
  return r;
}

/// Base elements a layout does not reach.
inline std::vector<bool> untouched(const layout& l) {
  std::vector<bool> u(static_cast<std::size_t>(l.base), true);
  for (index_t i = 0, n = test::count_of(l.dims); i < n; ++i)
    u[static_cast<std::size_t>(test::bcast_offset(test::unravel(i, l.dims), l.ref()))] = false;
  return u;
}

/// A broadcast shape: rank min_rank to 4, dims mostly 2..6, some 1, a few 0,
/// now and then a long one (the row and tile kernels), at most ~20000 elements.
inline std::vector<index_t> random_dims(std::mt19937_64& rng, int min_rank = 0, bool zeros = true) {
  const int rank = min_rank + static_cast<int>(rng() % static_cast<unsigned>(5 - min_rank));
  std::vector<index_t> d;
  for (int k = 0; k < rank; ++k) {
    const auto p = rng() % 100;
    d.push_back(p < 3 && zeros ? 0
                : p < 25       ? 1
                : p < 92       ? 2 + static_cast<index_t>(rng() % 5)
                               : 20 + static_cast<index_t>(rng() % 600));
  }
  while (test::count_of(d) > 20000)
    for (auto& x : d) x = std::max<index_t>(1, x / 2);
  return d;
}

/// The dims of a leaf that broadcasts to `full`: a suffix of it, some dims 1.
inline std::vector<index_t> leaf_dims(const std::vector<index_t>& full, std::mt19937_64& rng) {
  std::size_t drop = rng() % 3 == 0 ? rng() % (full.size() + 1) : 0;
  std::vector<index_t> d(full.begin() + static_cast<std::ptrdiff_t>(drop), full.end());
  for (auto& x : d)
    if (rng() % 4 == 0) x = 1;
  return d;
}

template <class T>
std::vector<T> random_values(std::size_t n, std::mt19937_64& rng) {
  return test::random_vector<T>(n, rng(), -K<T>, K<T>);
}

/// Leaves: random views on the target, with their host data and layouts.
template <class T, class Tg>
struct leaf_set {
  std::vector<std::vector<T>> host;
  std::vector<ufunc::array<T, Tg>> bases;
  std::vector<layout> lays;
  std::vector<ufunc::array_view<const T, Tg>> views;

  void add(const std::vector<index_t>& dims, std::mt19937_64& rng, bool zero_strides = true) {
    lays.push_back(random_layout(dims, rng, zero_strides));
    host.push_back(random_values<T>(static_cast<std::size_t>(lays.back().base), rng));
    bases.push_back(ufunc::asarray<Tg>(host.back(), shape{lays.back().base}));
    views.push_back(view(views.size()));
  }
  ufunc::array_view<T, Tg> view(std::size_t i) {
    T* p = lays[i].base > 0 ? bases[i].data() + lays[i].offset : bases[i].data();
    return ufunc::make_view<Tg>(p, test::shape_of(lays[i].dims), lays[i].strides);
  }
  std::string str() const {
    std::string s;
    for (std::size_t i = 0; i < lays.size(); ++i) s += "\n  leaf " + std::to_string(i) + ": " + lays[i].str();
    return s;
  }
};

// ---------------------------------------------------------------------------
// One tree template, two evaluators. A template calls b.un/bin/ter(node, args...)
// for the node functions, b.add/sub/mul/div/neg for the operators, and
// b.leaf(i), b.scalar(i), b.small(i) for its leaves; the lazy builder makes an
// expression of it, the eager builder calls a ufunc for each node at once and
// keeps the intermediate arrays.

template <class V>
struct leaf_ref {
  V v;
};
template <class X>
struct is_leaf_ref : std::false_type {};
template <class V>
struct is_leaf_ref<leaf_ref<V>> : std::true_type {};
template <class X>
inline constexpr bool is_leaf_v = is_leaf_ref<std::decay_t<X>>::value;

/// The op code of each node, chosen at random per case.
struct op_codes {
  const std::vector<int>* ops = nullptr;
  int code(int node, int n) const { return (*ops)[static_cast<std::size_t>(node)] % n; }
  /// select (op 2) only when its condition is a leaf, for floats: a computed
  /// condition near 0 could go either way with a rounding difference.
  template <class T, class X>
  int ternary_code(int node) const {
    const int c = code(node, ternary_ops);
    return (!is_int<T> && !is_leaf_v<X> && c == 2) ? 0 : c;
  }
};

/// The leaves of a case: views, scalars (in the element range) and small
/// scalars (small(0): a divisor in [1, 3]; small(1): a factor in [-3, 3]).
template <class T, class Tg>
struct case_leaves {
  const std::vector<ufunc::array_view<const T, Tg>>* views = nullptr;
  const std::vector<T>* scalars = nullptr;
  const std::vector<T>* smalls = nullptr;
};

template <class T, class Tg>
struct lazy_builder : op_codes, case_leaves<T, Tg> {
  using V = ufunc::array_view<const T, Tg>;
  leaf_ref<V> leaf(int i) const { return {(*this->views)[static_cast<std::size_t>(i)]}; }
  leaf_ref<T> scalar(int i) const { return {(*this->scalars)[static_cast<std::size_t>(i)]}; }
  leaf_ref<T> small(int i) const { return {(*this->smalls)[static_cast<std::size_t>(i)]}; }

  template <class X>
  static decltype(auto) arg(X&& x) {
    if constexpr (is_leaf_v<X>)
      return std::decay_t<decltype(x.v)>(x.v);
    else
      return std::forward<X>(x);
  }
  template <class X>
  auto un(int node, X&& x) const {
    return ufunc::vectorize<Tg>(unary_fn<T>{code(node, unary_ops)}, "unary").lazy(arg(std::forward<X>(x)));
  }
  template <class X, class Y>
  auto bin(int node, X&& x, Y&& y) const {
    return ufunc::vectorize<Tg>(binary_fn<T>{code(node, binary_ops)}, "binary")
        .lazy(arg(std::forward<X>(x)), arg(std::forward<Y>(y)));
  }
  template <class X, class Y, class Z>
  auto ter(int node, X&& x, Y&& y, Z&& z) const {
    return ufunc::vectorize<Tg>(ternary_fn<T>{ternary_code<T, X>(node)}, "ternary")
        .lazy(arg(std::forward<X>(x)), arg(std::forward<Y>(y)), arg(std::forward<Z>(z)));
  }
  // The operators; two leaves need ufunc::lazy on the left one.
  template <class F, class X, class Y>
  static auto op(F f, X&& x, Y&& y) {
    if constexpr (is_leaf_v<X> && is_leaf_v<Y>)
      return f(ufunc::lazy(arg(std::forward<X>(x))), arg(std::forward<Y>(y)));
    else
      return f(arg(std::forward<X>(x)), arg(std::forward<Y>(y)));
  }
  template <class X, class Y>
  auto add(X&& x, Y&& y) const {
    return op([](auto&& a, auto&& b) { return std::forward<decltype(a)>(a) + std::forward<decltype(b)>(b); },
              std::forward<X>(x), std::forward<Y>(y));
  }
  template <class X, class Y>
  auto sub(X&& x, Y&& y) const {
    return op([](auto&& a, auto&& b) { return std::forward<decltype(a)>(a) - std::forward<decltype(b)>(b); },
              std::forward<X>(x), std::forward<Y>(y));
  }
  template <class X, class Y>
  auto mul(X&& x, Y&& y) const {
    return op([](auto&& a, auto&& b) { return std::forward<decltype(a)>(a) * std::forward<decltype(b)>(b); },
              std::forward<X>(x), std::forward<Y>(y));
  }
  template <class X, class Y>
  auto div(X&& x, Y&& y) const {
    return op([](auto&& a, auto&& b) { return std::forward<decltype(a)>(a) / std::forward<decltype(b)>(b); },
              std::forward<X>(x), std::forward<Y>(y));
  }
  template <class X>
  auto neg(X&& x) const {
    if constexpr (is_leaf_v<X>)
      return -ufunc::lazy(arg(std::forward<X>(x)));
    else
      return -std::forward<X>(x);
  }
};

template <class T, class Tg>
struct eager_builder : op_codes, case_leaves<T, Tg> {
  using V = ufunc::array_view<const T, Tg>;
  std::deque<ufunc::array<T, Tg>> store;  // the intermediate arrays; the root's is the last

  // Scalars become 0-d arrays: the same values and broadcasting, and one eager
  // instantiation for every node.
  leaf_ref<V> leaf(int i) { return {(*this->views)[static_cast<std::size_t>(i)]}; }
  leaf_ref<V> scalar(int i) { return {keep(ufunc::full<T, Tg>(shape{}, (*this->scalars)[static_cast<std::size_t>(i)]))}; }
  leaf_ref<V> small(int i) { return {keep(ufunc::full<T, Tg>(shape{}, (*this->smalls)[static_cast<std::size_t>(i)]))}; }

  V keep(ufunc::array<T, Tg>&& a) {
    store.push_back(std::move(a));
    return V(store.back().view());
  }
  template <class X>
  static V arg(const X& x) {
    if constexpr (is_leaf_v<X>)
      return x.v;
    else
      return x;
  }
  V node(int kind, int op, V a, V b, V c) {
    return keep(ufunc::vectorize<Tg>(any_node_fn<T>{kind, op}, "node")(a, b, c));
  }
  V none() { return keep(ufunc::zeros<T, Tg>(shape{})); }

  template <class X>
  V un(int node_id, const X& x) { return node(0, code(node_id, unary_ops), arg(x), none(), none()); }
  template <class X, class Y>
  V bin(int node_id, const X& x, const Y& y) { return node(1, code(node_id, binary_ops), arg(x), arg(y), none()); }
  template <class X, class Y, class Z>
  V ter(int node_id, const X& x, const Y& y, const Z& z) {
    return node(2, ternary_code<T, X>(node_id), arg(x), arg(y), arg(z));
  }
  template <class X, class Y>
  V add(const X& x, const Y& y) { return node(3, 0, arg(x), arg(y), none()); }
  template <class X, class Y>
  V sub(const X& x, const Y& y) { return node(3, 1, arg(x), arg(y), none()); }
  template <class X, class Y>
  V mul(const X& x, const Y& y) { return node(3, 2, arg(x), arg(y), none()); }
  template <class X, class Y>
  V div(const X& x, const Y& y) { return node(3, 3, arg(x), arg(y), none()); }
  template <class X>
  V neg(const X& x) { return node(0, 0, arg(x), none(), none()); }  // unary op 0 is -x
};

// The tree templates. `nodes` is one more than the largest node number.

/// The random tree: depth 5 below the operators (every arity; selects on a leaf,
/// a scalar and a computed value), then s1 - X * f + -Y / q with scalars on
/// either side, two leaves joined by an operator and unary minus. Identity and
/// projection ops make the depth that matters anything from 1 to 8.
struct tree_random {
  static constexpr int leaves = 10, scalars = 2, nodes = 8;
  static constexpr const char* name =
      "s1 - ter0(a, bin1(un2(ter3(s0, bin4(b, c), d)), e), un5(f)) * f + -ter6(un7(g), h, i + j) / q";
  template <class B>
  auto operator()(B& b) const {
    auto x = b.ter(0, b.leaf(0), b.bin(1, b.un(2, b.ter(3, b.scalar(0), b.bin(4, b.leaf(1), b.leaf(2)), b.leaf(3))), b.leaf(4)),
                   b.un(5, b.leaf(5)));
    auto y = b.ter(6, b.un(7, b.leaf(6)), b.leaf(7), b.add(b.leaf(8), b.leaf(9)));
    return b.add(b.sub(b.scalar(1), b.mul(std::move(x), b.small(1))), b.div(b.neg(std::move(y)), b.small(0)));
  }
};
/// A balanced binary tree of depth D over leaves First.. First + 2^D - 1 (with
/// Scalars, every eighth leaf is a scalar); node numbers 0..30.
template <int D, int First, bool Scalars, class B>
auto balanced(B& b) {
  if constexpr (D == 0) {
    if constexpr (Scalars && First % 8 == 7)
      return b.scalar(First / 8);
    else
      return b.leaf(First);
  } else {
    return b.bin(32 - (64 >> D) + First / (1 << D), balanced<D - 1, First, Scalars>(b),
                 balanced<D - 1, First + (1 << (D - 1)), Scalars>(b));
  }
}
/// 16 array leaves, depth 4
struct tree16 {
  static constexpr int leaves = 16, scalars = 0, nodes = 31;
  static constexpr const char* name = "16 leaves, depth 4";
  template <class B>
  auto operator()(B& b) const { return balanced<4, 0, false>(b); }
};
/// 32 leaves (28 views and 4 scalars), depth 5: the most an expression holds
struct tree32 {
  static constexpr int leaves = 32, scalars = 4, nodes = 31;
  static constexpr const char* name = "32 leaves (4 scalars), depth 5";
  template <class B>
  auto operator()(B& b) const { return balanced<5, 0, true>(b); }
};

/// One random case of a tree template: leaves, scalars, op codes, and both
/// evaluations (the eager one done at construction).
template <class T, class Tg, class Tree>
struct random_case {
  std::uint64_t seed;
  std::mt19937_64 rng;
  std::vector<index_t> full;
  leaf_set<T, Tg> ls;
  std::vector<T> scalars, smalls;
  std::vector<int> ops;
  eager_builder<T, Tg> eager;

  explicit random_case(std::uint64_t s, int min_rank = 0, bool zeros = true) : seed(s), rng(s) {
    full = random_dims(rng, min_rank, zeros);
    for (int i = 0; i < Tree::leaves; ++i) ls.add(leaf_dims(full, rng), rng);
    scalars = random_values<T>(Tree::scalars, rng);
    smalls = {test::random_vector<T>(1, rng(), 1, 3)[0], test::random_vector<T>(1, rng(), -3, 3)[0]};
    for (int i = 0; i < Tree::nodes; ++i) ops.push_back(static_cast<int>(rng() % 420));  // uniform mod 3, 4, 6, 7
    init(eager);
    (void)Tree{}(eager);
  }
  template <class B>
  void init(B& b) const {
    b.ops = &ops;
    b.views = &ls.views;
    b.scalars = &scalars;
    b.smalls = &smalls;
  }
  const ufunc::array<T, Tg>& eager_result() const { return eager.store.back(); }
  auto lazy() const {
    lazy_builder<T, Tg> b;
    init(b);
    return Tree{}(b);
  }
  std::string str() const {
    std::ostringstream s;
    s << Tree::name << ", " << test::type_name<T>() << " on " << Tg::name << ", seed " << seed << ", broadcast "
      << test::dims_str(full) << ", ops";
    for (int o : ops) s << ' ' << o;
    s << ", scalars";
    for (T v : scalars) s << ' ' << static_cast<double>(v);
    for (T v : smalls) s << ' ' << static_cast<double>(v);
    return s.str() + ls.str();
  }
};

template <class T>
T sentinel() {
  return static_cast<T>(is_int<T> ? -7777 : 1234.5);
}

}  // namespace lazy_test

using namespace lazy_test;

// ---------------------------------------------------------------------------
// Random trees against eager evaluation

namespace {

/// `iters` random cases of one tree template: evaluate(e) into a new array,
/// evaluate(e, out(random strided view)) with the rest of out's base untouched,
/// and, in half of the cases where a leaf has the result's shape (and no zero
/// stride), in place into that leaf.
template <class Tg, class T, class Tree>
void check_random_trees(int iters) {
  for (int it = 0; it < iters; ++it) {
    random_case<T, Tg, Tree> c(test::fresh_seed());
    INFO(c.str());
    const auto& ref = c.eager_result();
    const auto want = ref.to_host();
    auto e = c.lazy();
    static_assert(std::is_same_v<typename decltype(e)::value_type, T>);
    REQUIRE(e.shape() == ref.shape());
    CHECK(e.ndim() == ref.ndim());
    CHECK(e.size() == ref.size());

    auto got = ufunc::evaluate(e);
    static_assert(std::is_same_v<decltype(got), ufunc::array<T, Tg>>);
    REQUIRE(got.shape() == ref.shape());
    expect_near(got.to_host(), want);

    // Into a strided out (padded, permuted, reversed, misaligned).
    const auto dims = test::dims_of(ref.shape());
    const layout ol = random_layout(dims, c.rng, false);
    INFO("out: " << ol.str());
    auto obase = ufunc::full<T, Tg>(shape{ol.base}, sentinel<T>());
    auto ov = ufunc::make_view<Tg>(ol.base > 0 ? obase.data() + ol.offset : obase.data(), ref.shape(), ol.strides);
    auto ret = ufunc::evaluate(e, ufunc::out(ov));
    static_assert(std::is_same_v<decltype(ret), ufunc::array_view<T, Tg>>);
    CHECK(ret.data() == ov.data());
    const auto hb = obase.to_host();
    expect_near(gather(hb, ol), want);
    const auto u = untouched(ol);
    std::size_t changed = 0;
    for (std::size_t i = 0; i < hb.size(); ++i) changed += u[i] && !(hb[i] == sentinel<T>());
    CHECK(changed == 0);

    // In place: out exactly a leaf of the result's shape.
    if (c.rng() % 2 == 0)
      for (std::size_t i = 0; i < c.ls.lays.size(); ++i) {
        const auto& l = c.ls.lays[i];
        if (l.dims != dims || std::count(l.strides.begin(), l.strides.end(), 0) > 0 || test::count_of(dims) == 0)
          continue;
        INFO("in place into leaf " << i);
        ufunc::evaluate(e, ufunc::out(c.ls.view(i)));
        expect_near(gather(c.ls.bases[i].to_host(), l), want);
        break;
      }
  }
}

}  // namespace

namespace {
/// The random trees run on the host target and, when this file is compiled by
/// nvcc in a CUDA build, on the CUDA target too (about 2.5 minutes of nvcc for
/// the file; the other cases below follow test::for_each_target, which
/// UFUNC_TEST_HOST_TARGET_ONLY limits to the host: test_lazy_device.cpp takes
/// them to the device).
template <class Fn>
void for_each_tree_target(Fn&& fn) {
  fn(ufunc::target::host{});
#if defined(__CUDACC__)
  if constexpr (!std::is_same_v<ufunc::target::device, ufunc::target::host>) fn(ufunc::target::device{});
#endif
}
}  // namespace

TEST_CASE("lazy: random expression trees equal eager evaluation of the same calls (float, double, int)") {
  for_each_tree_target([](auto tg) {
    using Tg = decltype(tg);
    check_random_trees<Tg, float, tree_random>(100);
    check_random_trees<Tg, double, tree_random>(60);
    check_random_trees<Tg, int, tree_random>(100);
  });
}

TEST_CASE("lazy: 16 and 32 leaves (arrays, views and scalars) in one expression") {
  for_each_tree_target([](auto tg) {
    using Tg = decltype(tg);
    check_random_trees<Tg, float, tree16>(20);
    check_random_trees<Tg, int, tree32>(20);
  });
}

// ---------------------------------------------------------------------------
// Reductions of expressions against the same reductions of the eager array
// (computed on the host from its elements, so no eager reduction kernels)

namespace {

/// The elements each output of a reduction of a row-major array of `dims` over
/// the dims marked in `red` combines, in row-major order (a position in a group
/// is an argmin index).
template <class T>
std::vector<std::vector<T>> groups(const std::vector<T>& h, const std::vector<index_t>& dims, const std::vector<bool>& red) {
  std::vector<index_t> kept;
  for (std::size_t d = 0; d < dims.size(); ++d)
    if (!red[d]) kept.push_back(dims[d]);
  const auto kst = test::row_major(kept);
  std::vector<std::vector<T>> g(static_cast<std::size_t>(test::count_of(kept)));
  for (index_t i = 0, n = test::count_of(dims); i < n; ++i) {
    const auto idx = test::unravel(i, dims);
    index_t o = 0;
    for (std::size_t d = 0, k = 0; d < dims.size(); ++d)
      if (!red[d]) o += idx[d] * kst[k++];
    g[static_cast<std::size_t>(o)].push_back(h[static_cast<std::size_t>(i)]);
  }
  return g;
}
inline std::vector<index_t> result_dims(const std::vector<index_t>& dims, const std::vector<bool>& red, bool keep) {
  std::vector<index_t> r;
  for (std::size_t d = 0; d < dims.size(); ++d)
    if (!red[d] || keep) r.push_back(red[d] ? 1 : dims[d]);
  return r;
}
template <class T>
double dsum(const std::vector<T>& g) {
  double s = 0;
  for (T v : g) s += static_cast<double>(v);
  return s;
}
template <class T>
double dabs_sum(const std::vector<T>& g) {
  double s = 0;
  for (T v : g) s += std::fabs(static_cast<double>(v));
  return s;
}
/// argmin/argmax positions agree: equal, or (floats) at values within the
/// elementwise tolerance (a near tie that a rounding difference may break).
template <class T>
bool same_pick(const std::vector<T>& g, index_t got, std::size_t want) {
  const auto k = static_cast<std::size_t>(got);
  return k == want || (!is_int<T> && got >= 0 && k < g.size() && near(g[k], g[want]));
}
template <class T>
std::size_t first_min(const std::vector<T>& g) {
  return static_cast<std::size_t>(std::min_element(g.begin(), g.end()) - g.begin());
}
template <class T>
std::size_t first_max(const std::vector<T>& g) {
  return static_cast<std::size_t>(std::max_element(g.begin(), g.end()) - g.begin());
}

/// Int expressions (exact): sum, argmin, mean of the whole; argmax along an
/// axis; max over several axes with keepdims; a custom reduce(op) along an axis
/// into a strided out; map_reduce of the expression and another input along an
/// axis. Float expressions: sum along an axis, min of the whole.
template <class Tg, class T>
void check_reductions(int iters) {
  for (int it = 0; it < iters; ++it) {
    random_case<T, Tg, tree_random> c(test::fresh_seed(), 1, it % 5 == 0);  // size-0 dims: sums only
    INFO(c.str());
    const auto e = c.lazy();
    const auto h = c.eager_result().to_host();
    const auto dims = test::dims_of(e.shape());
    const int rank = static_cast<int>(dims.size());
    const std::size_t n = h.size();
    const std::vector<bool> all(dims.size(), true);
    const int k = rank ? static_cast<int>(c.rng() % static_cast<unsigned>(rank)) : 0;
    const int kk = c.rng() % 2 ? k : k - rank;  // negative axes count from the end
    std::vector<bool> one(dims.size(), false);
    if (rank) one[static_cast<std::size_t>(k)] = true;
    const auto g1 = groups(h, dims, one);
    INFO("axis " << kk);

    if constexpr (is_int<T>) {
      const T s = ufunc::sum(e);
      CHECK(s == static_cast<T>(dsum(h)));
      if (n == 0) continue;
      CHECK(static_cast<std::size_t>(ufunc::argmin(e)) == first_min(h));
      const double m = ufunc::mean(e);
      CHECK(m == doctest::Approx(dsum(h) / static_cast<double>(n)).epsilon(1e-12));
      if (rank == 0) continue;

      const auto am = ufunc::argmax(e, ufunc::axis(kk)).to_host();
      REQUIRE(am.size() == g1.size());
      std::size_t bad = 0;
      for (std::size_t o = 0; o < g1.size(); ++o) bad += static_cast<std::size_t>(am[o]) != first_max(g1[o]);
      CHECK(bad == 0);

      std::vector<bool> red(dims.size());
      std::vector<int> axs;
      for (int d = 0; d < rank; ++d)
        if (c.rng() % 2) red[static_cast<std::size_t>(d)] = true, axs.push_back(d);
      INFO("axes " << ufunc::detail::axes_str(&axs));
      const auto mk = ufunc::max(e, ufunc::axes(axs), ufunc::keepdims);
      REQUIRE(mk.shape() == test::shape_of(result_dims(dims, red, true)));
      const auto gm = groups(h, dims, red);
      std::vector<T> wm;
      for (const auto& g : gm) wm.push_back(*std::max_element(g.begin(), g.end()));
      test::expect_equal(mk.to_host(), wm);

      // A custom op (min, no identity) into every other element of a wider array.
      const auto rdims = result_dims(dims, one, false);
      const index_t cnt = test::count_of(rdims);
      auto wide = ufunc::full<T, Tg>(shape{2 * cnt}, sentinel<T>());
      auto st = test::row_major(rdims);
      for (auto& v : st) v *= 2;
      ufunc::reduce(binary_fn<T>{3})(e, ufunc::axis(kk), ufunc::out(ufunc::make_view<Tg>(wide.data(), shape(rdims), st)));
      const auto hw = wide.to_host();
      bad = 0;
      for (std::size_t o = 0; o < g1.size(); ++o)
        bad += hw[2 * o] != *std::min_element(g1[o].begin(), g1[o].end()) || hw[2 * o + 1] != sentinel<T>();
      CHECK(bad == 0);

      // map_reduce over the expression and another input broadcasting with it.
      leaf_set<T, Tg> other;
      other.add(leaf_dims(dims, c.rng), c.rng);
      INFO("other: " << other.lays[0].str());
      const auto mr = ufunc::map_reduce(binary_fn<T>{2}, ufunc::plus{})(e, other.views[0], ufunc::axis(kk)).to_host();
      std::vector<T> mapped(n);
      for (std::size_t i = 0; i < n; ++i)
        mapped[i] = binary_fn<T>{2}(
            h[i], other.host[0][static_cast<std::size_t>(test::bcast_offset(test::unravel(static_cast<index_t>(i), dims),
                                                                             other.lays[0].ref()))]);
      const auto gmr = groups(mapped, dims, one);
      std::vector<T> wmr;
      for (const auto& g : gmr) wmr.push_back(static_cast<T>(dsum(g)));
      test::expect_equal(mr, wmr);
    } else {
      if (n == 0) continue;
      CHECK(near<T>(ufunc::min(e), *std::min_element(h.begin(), h.end())));
      const auto sa = ufunc::sum(e, ufunc::axis(kk)).to_host();
      REQUIRE(sa.size() == g1.size());
      std::size_t bad = 0;
      for (std::size_t o = 0; o < g1.size(); ++o)
        bad += !(std::fabs(sa[o] - dsum(g1[o])) <= sum_bound<T>(g1[o].size(), dabs_sum(g1[o])));
      CHECK(bad == 0);
    }
  }
}

}  // namespace

TEST_CASE("lazy: reductions of expressions equal reductions of the eagerly evaluated array") {
  test::for_each_target([](auto tg) {
    using Tg = decltype(tg);
    check_reductions<Tg, int>(60);
    check_reductions<Tg, float>(40);
  });
}

// ---------------------------------------------------------------------------
// The API, piece by piece, against host loops. Most cases share the expression
// type of e2 = add.lazy(mul.lazy(x, b), c) (leaves held as views, whether
// given as arrays or views), so its kernels are compiled once.

namespace {

// (Function objects: nvcc allows no extended lambda in a function with a
// deduced return type; gaussian_pdf and sum_diff below are lambdas.)
struct mul_fn {
  UFUNC_HD float operator()(float a, float b) const { return a * b; }
};
struct add_fn {
  UFUNC_HD float operator()(float a, float b) const { return a + b; }
};
template <class Tg>
ufunc::vectorized<Tg, mul_fn> make_mul() {
  return ufunc::vectorize<Tg>(mul_fn{}, "mul");
}
template <class Tg>
ufunc::vectorized<Tg, add_fn> make_add() {
  return ufunc::vectorize<Tg>(add_fn{}, "add");
}

/// x (r, n), b (n,), c (r, 1) on target Tg, with host copies.
template <class Tg>
struct xbc {
  std::size_t r, n;
  std::vector<float> hx, hb, hc;
  ufunc::array<float, Tg> x, b, c;
  xbc(std::size_t rows, std::size_t cols, std::mt19937_64& rng)
      : r(rows), n(cols), hx(random_values<float>(rows * cols, rng)), hb(random_values<float>(cols, rng)),
        hc(random_values<float>(rows, rng)), x(ufunc::asarray<Tg>(hx, shape{index_t(rows), index_t(cols)})),
        b(ufunc::asarray<Tg>(hb, shape{index_t(cols)})), c(ufunc::asarray<Tg>(hc, shape{index_t(rows), 1})) {}
  /// f(x[i][j], b[j], c[i]) for every element, row-major.
  template <class F>
  std::vector<float> map(F f) const {
    std::vector<float> w(r * n);
    for (std::size_t i = 0; i < r; ++i)
      for (std::size_t j = 0; j < n; ++j) w[i * n + j] = f(hx[i * n + j], hb[j], hc[i]);
    return w;
  }
};

template <class Tg>
void api_of_the_issue() {
  const auto seed = test::fresh_seed();
  INFO("target " << Tg::name << ", seed " << seed);
  std::mt19937_64 rng(seed);
  const auto mul = make_mul<Tg>();
  const auto add = make_add<Tg>();
  const xbc<Tg> d(4, 5, rng);
  const auto& x = d.x;
  const auto& b = d.b;
  const auto& c = d.c;
  const auto want2 = d.map([](float xv, float bv, float cv) { return xv * bv + cv; });
  const auto want3 = d.map([](float xv, float bv, float) { return xv * bv + 1.0f; });

  auto e = mul.lazy(x, b);  // nothing runs; the shapes broadcast now
  CHECK(e.shape() == shape{4, 5});
  auto e2 = add.lazy(e, c);
  static_assert(std::is_same_v<typename decltype(e2)::value_type, float>);
  CHECK(e2.shape() == shape{4, 5});
  CHECK(e2.ndim() == 2);
  CHECK(e2.size() == 20);
  ufunc::array<float, Tg> y = ufunc::evaluate(e2);
  expect_near(y.to_host(), want2);
  expect_near(ufunc::evaluate(e2).to_host(), want2);  // evaluates again
  auto e3 = ufunc::lazy(x) * b + 1.0f;
  static_assert(std::is_same_v<typename decltype(e3)::value_type, float>);
  expect_near(ufunc::evaluate(e3).to_host(), want3);

  const float s = ufunc::sum(e2);
  CHECK(std::fabs(s - dsum(want2)) <= sum_bound<float>(20, dabs_sum(want2)));
  auto r = ufunc::argmax(e2, ufunc::axis(1));
  static_assert(std::is_same_v<decltype(r), ufunc::array<index_t, Tg>>);
  const auto hr = r.to_host();
  REQUIRE(hr.size() == 4);
  for (std::size_t i = 0; i < 4; ++i) {
    const std::vector<float> row(want2.begin() + static_cast<std::ptrdiff_t>(i * 5), want2.begin() + static_cast<std::ptrdiff_t>(i * 5 + 5));
    CHECK(same_pick(row, hr[i], first_max(row)));
  }
}

template <class Tg>
void operators_and_element_types() {
  const auto seed = test::fresh_seed();
  INFO("target " << Tg::name << ", seed " << seed);
  std::mt19937_64 rng(seed);
  const auto hi = test::random_vector<int>(12, rng(), -50, 50);           // (3,4)
  const auto hf = test::random_vector<float>(4, rng(), -4, 4);            // (4,)
  const auto hd = test::random_vector<double>(3, rng(), 1, 3);            // (3,1)
  const auto h8 = test::random_vector<std::int8_t>(4, rng(), -128, 127);  // (4,)
  const auto xi = ufunc::asarray<Tg>(hi, shape{3, 4});
  const auto xf = ufunc::asarray<Tg>(hf, shape{4});
  const auto xd = ufunc::asarray<Tg>(hd, shape{3, 1});
  const auto x8 = ufunc::asarray<Tg>(h8, shape{4});

  auto e1 = ufunc::lazy(xi) * xf;                                   // int * float
  auto e2 = 2.5f - ufunc::lazy(xi);                                 // a scalar on the left
  auto e3 = ufunc::lazy(xi) / 3;                                    // int / int truncates
  auto e4 = (ufunc::lazy(xi) + 1) * (ufunc::lazy(xf) - 0.5f) / xd;  // int, float, double
  auto e5 = -ufunc::lazy(x8) * x8;                                  // int8 promotes to int
  auto e6 = xf * (ufunc::lazy(xi) * 2.0);                           // an array on the left, a double scalar
  static_assert(std::is_same_v<typename decltype(e1)::value_type, float>);
  static_assert(std::is_same_v<typename decltype(e2)::value_type, float>);
  static_assert(std::is_same_v<typename decltype(e3)::value_type, int>);
  static_assert(std::is_same_v<typename decltype(e4)::value_type, double>);
  static_assert(std::is_same_v<typename decltype(e5)::value_type, int>);
  static_assert(std::is_same_v<typename decltype(e6)::value_type, double>);
  CHECK(e1.shape() == shape{3, 4});
  CHECK(e5.shape() == shape{4});

  // Each evaluated expression is another kernel to compile: the four with
  // single types go into one.
  auto all = (e1 + e2) * e6 - e3 * e5;
  static_assert(std::is_same_v<typename decltype(all)::value_type, double>);
  std::vector<double> w4(12), wall(12);
  for (std::size_t i = 0; i < 3; ++i)
    for (std::size_t j = 0; j < 4; ++j) {
      const std::size_t k = i * 4 + j;
      w4[k] = (hi[k] + 1) * (hf[j] - 0.5f) / hd[i];
      const float v1 = hi[k] * hf[j], v2 = 2.5f - hi[k];
      const int v3 = hi[k] / 3, v5 = -h8[j] * h8[j];
      wall[k] = (v1 + v2) * (hf[j] * (hi[k] * 2.0)) - v3 * v5;
    }
  expect_near(ufunc::evaluate(e4).to_host(), w4, 1e-6);  // float steps inside: a float's tolerance
  expect_near(ufunc::evaluate(all).to_host(), wall, 1e-6);

  // A leaf alone: evaluate copies a reversed, strided view into a new array.
  const auto rev = xi.view().sliced(0, -1, -4, -1).sliced(1, 0, 4, 2);  // xi[::-1, ::2]
  const auto copy = ufunc::evaluate(ufunc::lazy(rev));
  REQUIRE(copy.shape() == shape{3, 2});
  const auto hc = copy.to_host();
  for (std::size_t i = 0; i < 3; ++i)
    for (std::size_t j = 0; j < 2; ++j) CHECK(hc[i * 2 + j] == hi[(2 - i) * 4 + 2 * j]);
}

/// An expression built in a function from local arrays moved into it, returned.
template <class Tg, class Add, class Mul>
auto owned_expression(const Add& add, const Mul& mul, const ufunc::array<float, Tg>& x, const std::vector<float>& hb,
                      const std::vector<float>& hc) {
  auto b = ufunc::asarray<Tg>(hb, shape{index_t(hb.size())});
  auto c = ufunc::asarray<Tg>(hc, shape{index_t(hc.size()), 1});
  return add.lazy(mul.lazy(x, std::move(b)), std::move(c));  // e2's type
}

template <class Tg>
void rvalue_leaves_are_owned() {
  const auto seed = test::fresh_seed();
  INFO("target " << Tg::name << ", seed " << seed);
  std::mt19937_64 rng(seed);
  const auto mul = make_mul<Tg>();
  const auto add = make_add<Tg>();
  const xbc<Tg> d(4, 5, rng);
  const auto want = d.map([](float xv, float bv, float cv) { return xv * bv + cv; });
  // Memory freed by a leaf the expression failed to own would be reused (and
  // overwritten) by these arrays of the same sizes.
  auto reuse = [] {
    std::vector<ufunc::array<float, Tg>> junk;
    for (int k = 0; k < 8; ++k) {
      junk.push_back(ufunc::full<float, Tg>(shape{4, 5}, 1e30f));
      junk.push_back(ufunc::full<float, Tg>(shape{5}, 1e30f));
      junk.push_back(ufunc::full<float, Tg>(shape{4, 1}, 1e30f));
    }
    return junk;
  };

  auto e = add.lazy(mul(d.x, d.b), d.c);  // the eager result is an rvalue: owned
  auto junk1 = reuse();
  expect_near(ufunc::evaluate(e).to_host(), want);

  auto f = owned_expression<Tg>(add, mul, d.x, d.hb, d.hc);
  auto junk2 = reuse();
  expect_near(ufunc::evaluate(f).to_host(), want);

  // A copy shares the owned arrays: it outlives the original.
  auto g = f;
  { auto gone = std::move(f); }
  auto junk3 = reuse();
  expect_near(ufunc::evaluate(g).to_host(), want);
}

template <class Tg>
void eager_calls_take_expressions() {
  const auto seed = test::fresh_seed();
  INFO("target " << Tg::name << ", seed " << seed);
  std::mt19937_64 rng(seed);
  const auto mul = make_mul<Tg>();
  const auto add = make_add<Tg>();
  const auto gaussian_pdf = ufunc::vectorize<Tg>(
      [] UFUNC_HD (float x, float mean, float sigma) {
        const float z = (x - mean) / sigma;
        return expf(-0.5f * z * z) / (sigma * 2.5066282746310002f);
      },
      "gaussian_pdf");
  auto pdf = [](float v, float mean, float sigma) {
    const double z = (double(v) - mean) / sigma;
    return static_cast<float>(std::exp(-0.5 * z * z) / (sigma * 2.5066282746310002));
  };
  const xbc<Tg> d(6, 7, rng);
  const auto hm = random_values<float>(84, rng);
  const auto m = ufunc::asarray<Tg>(hm, shape{2, 6, 7});
  const auto e2 = add.lazy(mul.lazy(d.x, d.b), d.c);
  const auto y2 = d.map([](float xv, float bv, float cv) { return xv * bv + cv; });

  auto z = gaussian_pdf(e2, 0.0f, 1.0f);  // one kernel: the expression is fused into the call
  static_assert(std::is_same_v<decltype(z), ufunc::array<float, Tg>>);
  std::vector<float> want(y2.size());
  for (std::size_t k = 0; k < y2.size(); ++k) want[k] = pdf(y2[k], 0.0f, 1.0f);
  expect_near(z.to_host(), want);  // expf: a few ulp from the double reference

  // out and a stream, as in any call.
  ufunc::stream s;
  auto o = ufunc::full<float, Tg>(shape{6, 7}, -1.0f);
  auto ret = gaussian_pdf(e2, 0.0f, 1.0f, ufunc::out(o), s);
  static_assert(std::is_same_v<decltype(ret), ufunc::array_view<float, Tg>>);
  CHECK(ret.data() == o.data());
  s.synchronize();
  expect_near(o.to_host(), want);

  // The expression later in the arguments, broadcast against a 3-d array.
  auto z2 = gaussian_pdf(m, e2, 2.0f);
  REQUIRE(z2.shape() == shape{2, 6, 7});
  std::vector<float> want2(84);
  for (std::size_t k = 0; k < 84; ++k) want2[k] = pdf(hm[k], y2[k % 42], 2.0f);
  expect_near(z2.to_host(), want2);
  // Two expressions as arguments.
  auto z3 = mul(e2, ufunc::lazy(d.x) - 0.5f);
  expect_near(z3.to_host(), d.map([](float xv, float bv, float cv) { return (xv * bv + cv) * (xv - 0.5f); }));
}

template <class Tg>
void evaluate_into_out() {
  const auto seed = test::fresh_seed();
  INFO("target " << Tg::name << ", seed " << seed);
  std::mt19937_64 rng(seed);
  // Small integers: every result is exact (e3's type from api_of_the_issue).
  const auto ix = test::random_vector<int>(12, rng(), -20, 20), ib = test::random_vector<int>(3, rng(), -20, 20);
  const std::vector<float> hx(ix.begin(), ix.end()), hb(ib.begin(), ib.end());
  const auto x = ufunc::asarray<Tg>(hx, shape{4, 3});
  const auto b = ufunc::asarray<Tg>(hb, shape{3});
  const auto e = ufunc::lazy(x) * b + 0.25f;
  std::vector<float> want(12);
  for (std::size_t k = 0; k < 12; ++k) want[k] = hx[k] * hb[k % 3] + 0.25f;

  // Every other column of a (4, 6) double array.
  auto o = ufunc::full<double, Tg>(shape{4, 6}, -1.0);
  const auto ov = o.view().sliced(1, 1, 6, 2);
  auto r = ufunc::evaluate(e, ufunc::out(ov));
  static_assert(std::is_same_v<decltype(r), ufunc::array_view<double, Tg>>);
  CHECK(r.data() == ov.data());
  CHECK(r.shape() == shape{4, 3});
  const auto ho = o.to_host();
  for (std::size_t i = 0; i < 4; ++i)
    for (std::size_t j = 0; j < 3; ++j) {
      CHECK(ho[i * 6 + 2 * j + 1] == static_cast<double>(want[i * 3 + j]));
      CHECK(ho[i * 6 + 2 * j] == -1.0);
    }
  // A transposed view and a reversed one.
  auto ot = ufunc::full<float, Tg>(shape{3, 4}, -1.0f);
  ufunc::evaluate(e, ufunc::out(ot.view().transposed()));
  auto orv = ufunc::full<float, Tg>(shape{4, 3}, -1.0f);
  ufunc::evaluate(e, ufunc::out(orv.view().sliced(0, -1, -5, -1)));
  const auto ht = ot.to_host(), hrv = orv.to_host();
  for (std::size_t i = 0; i < 4; ++i)
    for (std::size_t j = 0; j < 3; ++j) {
      CHECK(ht[j * 4 + i] == want[i * 3 + j]);
      CHECK(hrv[(3 - i) * 3 + j] == want[i * 3 + j]);
    }

  // On a stream: a new array allocated there, and an out with the controls in either order.
  ufunc::stream s;
  auto y = ufunc::evaluate(e, s);
  CHECK(y.stream().get() == s.get());
  test::expect_equal(y.to_host(), want);
  auto o1 = ufunc::full<float, Tg>(shape{4, 3}, -1.0f);
  auto o2 = ufunc::full<float, Tg>(shape{4, 3}, -1.0f);
  ufunc::evaluate(e, ufunc::out(o1), s);
  ufunc::evaluate(e, s, ufunc::out(o2));
  s.synchronize();
  test::expect_equal(o1.to_host(), want);
  test::expect_equal(o2.to_host(), want);
}

template <class T>
void expect_unchanged(const std::vector<T>& got, const std::vector<T>& before) {
  std::size_t changed = 0;
  for (std::size_t i = 0; i < got.size(); ++i) changed += !(got[i] == before[i]);
  INFO(changed << " of " << got.size() << " elements changed");
  CHECK(changed == 0);
}

/// `fn` throws shape_error mentioning `part`; `arr` is as it was.
template <class Fn, class A>
void expect_refused(Fn fn, const A& arr, const char* part) {
  const auto before = arr.to_host();
  const std::string what = test::message_of<ufunc::shape_error>(fn);
  INFO("message: " << what << "; expected to contain: " << part);
  CHECK(test::contains(what, part));
  expect_unchanged(arr.to_host(), before);
}

/// a * b + c over three float views: one expression type for every case below.
template <class V>
auto axpy(V a, V b, V c) {
  return ufunc::lazy(a) * b + c;
}

template <class Tg>
void in_place_and_overlap() {
  const auto seed = test::fresh_seed();
  INFO("target " << Tg::name << ", seed " << seed);
  std::mt19937_64 rng(seed);
  const auto add = make_add<Tg>();
  const auto hx = random_values<float>(36, rng), hb = random_values<float>(6, rng);
  auto b = ufunc::asarray<Tg>(hb, shape{6});
  const auto bv = b.view();
  auto b3 = ufunc::asarray<Tg>(std::vector<float>(hb.begin(), hb.begin() + 3), shape{3});
  std::vector<float> want(36);

  // out exactly the leaf that appears twice.
  {
    auto x = ufunc::asarray<Tg>(hx, shape{6, 6});
    const auto xv = x.view();
    auto r = ufunc::evaluate(axpy(xv, bv, xv), ufunc::out(xv));
    CHECK(r.data() == x.data());
    for (std::size_t k = 0; k < 36; ++k) want[k] = hx[k] * hb[k % 6] + hx[k];
    expect_near(x.to_host(), want);
    // An eager call with an expression input, in place.
    add(axpy(xv, bv, xv), bv, ufunc::out(xv));
    for (std::size_t k = 0; k < 36; ++k) want[k] = want[k] * hb[k % 6] + want[k] + hb[k % 6];
    expect_near(x.to_host(), want);
  }
  // A transposed view and a reversed one, in place.
  {
    auto x = ufunc::asarray<Tg>(hx, shape{6, 6});
    const auto t = x.view().transposed();
    ufunc::evaluate(axpy(t, bv, t), ufunc::out(t));  // x[i][j] = x[i][j] * b[i] + x[i][j]
    for (std::size_t k = 0; k < 36; ++k) want[k] = hx[k] * hb[k / 6] + hx[k];
    expect_near(x.to_host(), want);
    const auto rv = x.view().sliced(0, -1, -7, -1);
    ufunc::evaluate(axpy(rv, bv, rv), ufunc::out(rv));
    for (std::size_t k = 0; k < 36; ++k) want[k] = want[k] * hb[k % 6] + want[k];
    expect_near(x.to_host(), want);
  }
  // Interleaved columns share no element: accepted.
  {
    auto x = ufunc::asarray<Tg>(hx, shape{6, 6});
    const auto even = x.view().sliced(1, 0, 6, 2), odd = x.view().sliced(1, 1, 6, 2);
    ufunc::evaluate(axpy(odd, b3.view(), odd), ufunc::out(even));
    const auto h = x.to_host();
    for (std::size_t i = 0; i < 6; ++i)
      for (std::size_t j = 0; j < 3; ++j) {
        const float v = hx[i * 6 + 2 * j + 1];
        CHECK(near(h[i * 6 + 2 * j], v * hb[j] + v));
        CHECK(h[i * 6 + 2 * j + 1] == v);
      }
  }
  // Partial overlaps are refused and nothing is written.
  {
    auto x = ufunc::asarray<Tg>(hx, shape{6, 6});
    const auto xv = x.view();
    const auto top = xv.sliced(0, 0, 5), bottom = xv.sliced(0, 1, 6);
    // out is exactly one leaf but overlaps another (the transpose).
    expect_refused([&] { ufunc::evaluate(axpy(xv, bv, xv.transposed()), ufunc::out(xv)); }, x, "overlap");
    // out is a leaf shifted by a row.
    expect_refused([&] { ufunc::evaluate(axpy(top, bv, top), ufunc::out(bottom)); }, x, "overlap");
    // out is the leaf reversed: the same elements in another order.
    expect_refused([&] { ufunc::evaluate(axpy(xv, bv, xv), ufunc::out(xv.sliced(0, -1, -7, -1))); }, x, "overlap");
    // An eager call whose expression input is fine and whose other input overlaps.
    expect_refused([&] { add(axpy(xv, bv, xv), xv.transposed(), ufunc::out(xv)); }, x, "overlap");
    // A reduction's out shares no element with an input, exactly its input included.
    auto row = ufunc::asarray<Tg>(hb, shape{1, 6});
    const auto rwv = row.view();
    expect_refused([&] { ufunc::sum(axpy(rwv, rwv, rwv), ufunc::axis(0), ufunc::keepdims, ufunc::out(rwv)); }, row,
                   "overlap");
  }
}

template <class Tg>
void errors_name_the_function_and_shapes() {
  INFO("target " << Tg::name);
  const auto mul = make_mul<Tg>();
  const auto add = make_add<Tg>();
  const auto a43 = ufunc::full<float, Tg>(shape{4, 3}, 1.0f);
  const auto b2 = ufunc::full<float, Tg>(shape{2}, 2.0f);
  const auto b3 = ufunc::full<float, Tg>(shape{3}, 3.0f);
  const auto c41 = ufunc::full<float, Tg>(shape{4, 1}, 4.0f);

  auto check_message = [](const std::string& what, const char* starts) {
    INFO("message: " << what);
    CHECK(what.rfind(starts, 0) == 0);
    CHECK(test::contains(what, "cannot broadcast"));
    CHECK(test::contains(what, "(4,3)"));
    CHECK(test::contains(what, "(2,)"));
  };
  check_message(test::message_of<ufunc::shape_error>([&] { (void)mul.lazy(a43, b2); }), "mul: ");
  check_message(test::message_of<ufunc::shape_error>([&] { (void)add.lazy(mul.lazy(a43, b3), b2); }), "add: ");
  check_message(test::message_of<ufunc::shape_error>([&] { (void)add.lazy(mul.lazy(a43, 2.0f), ufunc::lazy(b2) * 2.0f); }),
                "add: ");
  check_message(test::message_of<ufunc::shape_error>([&] { (void)(ufunc::lazy(a43) + b2); }), "");
  check_message(test::message_of<ufunc::shape_error>([&] { (void)((ufunc::lazy(b2) - 1.0f) * a43); }), "");

  // e2's type; an out of the wrong shape: shape_error naming it, and nothing written.
  const auto e = add.lazy(mul.lazy(a43, b3), c41);
  REQUIRE(e.shape() == shape{4, 3});
  check_message(test::message_of<ufunc::shape_error>([&] { (void)mul(e, b2); }), "mul: ");
  const float sentinel = -777.0f;
  for (const std::vector<index_t>& od : std::vector<std::vector<index_t>>{{3, 4}, {4}, {12}, {1, 3}, {4, 3, 2}, {}, {0, 3}}) {
    INFO("out " << test::dims_str(od));
    auto o = ufunc::full<float, Tg>(test::shape_of(od), sentinel);
    std::string what = test::message_of<ufunc::shape_error>([&] { ufunc::evaluate(e, ufunc::out(o)); });
    CHECK(test::contains(what, test::dims_str(od)));
    expect_unchanged(o.to_host(), std::vector<float>(static_cast<std::size_t>(o.size()), sentinel));
    what = test::message_of<ufunc::shape_error>([&] { mul(e, b3, ufunc::out(o)); });
    CHECK(test::contains(what, test::dims_str(od)));
    expect_unchanged(o.to_host(), std::vector<float>(static_cast<std::size_t>(o.size()), sentinel));
  }
  // Reductions check their axes against the expression's shape.
  const std::string what = test::message_of<ufunc::shape_error>([&] { (void)ufunc::argmax(e, ufunc::axis(2)); });
  INFO("message: " << what);
  CHECK(test::contains(what, "(4,3)"));
}

template <class Tg>
void several_outputs_at_the_root() {
  const auto seed = test::fresh_seed();
  INFO("target " << Tg::name << ", seed " << seed);
  std::mt19937_64 rng(seed);
  const auto mul = make_mul<Tg>();
  const auto sum_diff = ufunc::vectorize<Tg>(
      [] UFUNC_HD (float a, float b) { return cuda::std::make_tuple(a + b, static_cast<int>(a - b)); }, "sum_diff");
  // Small integers: exact.
  const auto ix = test::random_vector<int>(20, rng(), -30, 30), ib = test::random_vector<int>(4, rng(), -30, 30),
             ic = test::random_vector<int>(5, rng(), -30, 30);
  const auto x = ufunc::asarray<Tg>(std::vector<float>(ix.begin(), ix.end()), shape{5, 4});
  const auto b = ufunc::asarray<Tg>(std::vector<float>(ib.begin(), ib.end()), shape{4});
  const auto c = ufunc::asarray<Tg>(std::vector<float>(ic.begin(), ic.end()), shape{5, 1});
  std::vector<float> ws(20);
  std::vector<int> wd(20);
  for (std::size_t i = 0; i < 5; ++i)
    for (std::size_t j = 0; j < 4; ++j) {
      const float p = static_cast<float>(ix[i * 4 + j] * ib[j]);
      ws[i * 4 + j] = p + static_cast<float>(ic[i]);
      wd[i * 4 + j] = static_cast<int>(p - static_cast<float>(ic[i]));
    }
  const auto e = sum_diff.lazy(mul.lazy(x, b), c);
  auto r = ufunc::evaluate(e);
  static_assert(std::is_same_v<decltype(r), std::tuple<ufunc::array<float, Tg>, ufunc::array<int, Tg>>>);
  test::expect_equal(std::get<0>(r).to_host(), ws);
  test::expect_equal(std::get<1>(r).to_host(), wd);
  // As an eager call with an expression input.
  auto [s2, d2] = sum_diff(mul.lazy(x, b), c);
  test::expect_equal(s2.to_host(), ws);
  test::expect_equal(d2.to_host(), wd);
}

}  // namespace

TEST_CASE("lazy: the API: f.lazy, ufunc::lazy and operators, evaluate, sum and argmax of an expression") {
  test::for_each_target([](auto tg) { api_of_the_issue<decltype(tg)>(); });
}

TEST_CASE("lazy: operators with scalars and arrays on either side; element types follow C++'s conversions") {
  test::for_each_target([](auto tg) { operators_and_element_types<decltype(tg)>(); });
}

TEST_CASE("lazy: arrays passed as rvalues are owned by the expression (also when it is returned or copied)") {
  test::for_each_target([](auto tg) { rvalue_leaves_are_owned<decltype(tg)>(); });
}

TEST_CASE("lazy: an expression as input to an eager call is fused into it (out and stream as usual)") {
  test::for_each_target([](auto tg) { eager_calls_take_expressions<decltype(tg)>(); });
}

TEST_CASE("lazy: evaluate into out: strided, transposed, reversed, another element type, on a stream") {
  test::for_each_target([](auto tg) { evaluate_into_out<decltype(tg)>(); });
}

TEST_CASE("lazy: in place into a leaf; partial overlaps refused with out untouched") {
  test::for_each_target([](auto tg) { in_place_and_overlap<decltype(tg)>(); });
}

TEST_CASE("lazy: shapes that do not broadcast throw shape_error naming the function; bad outs stay untouched") {
  test::for_each_target([](auto tg) { errors_name_the_function_and_shapes<decltype(tg)>(); });
}

TEST_CASE("lazy: a function with several outputs at the root gives a tuple of arrays") {
  test::for_each_target([](auto tg) { several_outputs_at_the_root<decltype(tg)>(); });
}
