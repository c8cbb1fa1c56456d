// ufunc::argmin_k / argmax_k / min_k / max_k (select_k.hpp, issue 42): the K
// first values along an axis of a lazy expression, array or view, and their
// indices, against two references on fresh random data, each row ordered on
// the host by std::stable_sort in topk's order (ascending with NaN last, or
// descending with NaN first; ties by position): the expression evaluated on
// the target and copied back (the same values and indices, exactly), and a
// plain loop over the elements computed here from the inputs. (Not ufunc::topk
// of the evaluated expression, as before: that compiled topk's device sorts
// for each key type into this file, the longest of the GPU suite's build; topk
// has its own tests, test_sort*.cpp.) Pairwise layouts (vec<3> points, both
// orientations: the GPU's tiled kernel), a 3-D expression with broadcast dims
// (the general kernel), plain arrays and strided, reversed and transposed
// views with NaNs, infinities, signed zeros and many ties, int keys; K in
// {1, 2, 7, 16, 64}, rows shorter than K (value_error); the split of long rows
// into chunks (few outputs), merged lists with empty entries, the same bytes
// at any thread count, typed errors before any allocation, out-of-memory
// without leaks, and no temporary of the pairs' size. Coordinates on grids of
// quarters or integers make squared distances exact in float (on the GPU too,
// FMA or not), so values compare exactly and ties are frequent.
#include "pairwise_support.hpp"
#include "sort_support.hpp"

#include <omp.h>

#include <algorithm>
#include <cstring>
#include <functional>
#include <limits>
#include <mutex>
#include <new>

// Named (not anonymous): nvcc warns of the unused half of a resource's calls
// in an unnamed namespace (the host's in a CUDA build).
namespace select_k_test {

/// A host resource recording the largest allocation it made (arrays, results
/// and temporaries of the device target: the host backend's in a host build).
struct peak_resource {
  std::mutex m;
  std::size_t largest = 0;
  long count = 0;
  void note(std::size_t bytes) {
    std::lock_guard<std::mutex> lock(m);
    largest = std::max(largest, bytes);
    ++count;
  }
  void* allocate(std::size_t bytes, std::size_t align) {
    note(bytes);
    void* p = std::aligned_alloc(align, (bytes + align - 1) / align * align);
    if (!p) throw std::bad_alloc();
    return p;
  }
  void deallocate(void* p, std::size_t, std::size_t) { std::free(p); }
#if defined(UFUNC_BACKEND_CUDA)
  void* allocate_async(std::size_t bytes, std::size_t, cuda::stream_ref s) {
    note(bytes);
    void* p = nullptr;
    if (cudaMallocAsync(&p, bytes, s.get()) != cudaSuccess) throw std::bad_alloc();
    return p;
  }
  void deallocate_async(void* p, std::size_t, std::size_t, cuda::stream_ref s) { (void)cudaFreeAsync(p, s.get()); }
#endif
};
}  // namespace select_k_test

namespace {

using sort_test::ref_less;
using test::dist2_3;
using test::P3;
using ufunc::index_t;

template <int K>
using k_c = std::integral_constant<int, K>;
/// fn(k_c<K>{}) for each K the tests use.
template <class Fn>
void for_each_k(Fn&& fn) {
  fn(k_c<1>{});
  fn(k_c<2>{});
  fn(k_c<7>{});
  fn(k_c<16>{});
  fn(k_c<64>{});
}

/// (a - b)^2, one coordinate.
struct sq_diff {
  UFUNC_HD float operator()(float a, float b) const { return (a - b) * (a - b); }
};
/// |a - b| on integers (many ties).
struct abs_diff {
  UFUNC_HD int operator()(int a, int b) const { return a < b ? b - a : a - b; }
};

/// Each row of the row-major elements `e` (shape `dims`) along `axis` ordered
/// by std::stable_sort of its positions in topk's order (ascending, NaN last;
/// or descending, NaN first), the first `keep` of each: values and positions,
/// as `dims` with extent `keep` along the axis.
template <class T>
struct ref_rows {
  std::vector<index_t> kdims;
  std::vector<T> v;
  std::vector<index_t> i;
};
template <class T>
ref_rows<T> ref_select(const std::vector<T>& e, const std::vector<index_t>& dims, int axis, index_t keep,
                       bool largest) {
  ref_rows<T> r;
  r.kdims = dims;
  r.kdims[std::size_t(axis)] = keep;
  r.v.resize(std::size_t(test::count_of(r.kdims)));
  r.i.resize(r.v.size());
  if (keep == 0) return r;
  const auto rows = sort_test::rows_of(dims, axis), krows = sort_test::rows_of(r.kdims, axis);
  REQUIRE(rows.size() == krows.size());
  for (std::size_t q = 0; q < rows.size(); ++q) {
    const auto& row = rows[q];
    std::vector<index_t> p(row.size());
    for (std::size_t j = 0; j < p.size(); ++j) p[j] = index_t(j);
    auto key = [&](index_t j) { return e[std::size_t(row[std::size_t(j)])]; };
    std::stable_sort(p.begin(), p.end(),
                     [&](index_t a, index_t b) { return largest ? ref_less(key(b), key(a)) : ref_less(key(a), key(b)); });
    for (index_t j = 0; j < keep; ++j) {
      r.v[std::size_t(krows[q][std::size_t(j)])] = key(p[std::size_t(j)]);
      r.i[std::size_t(krows[q][std::size_t(j)])] = p[std::size_t(j)];
    }
  }
  return r;
}
/// The first K of each row of a reference taken with keep >= K.
template <class T>
ref_rows<T> first_k(const ref_rows<T>& r, int axis, index_t K) {
  ref_rows<T> o;
  o.kdims = r.kdims;
  o.kdims[std::size_t(axis)] = K;
  const auto from = sort_test::rows_of(r.kdims, axis), to = sort_test::rows_of(o.kdims, axis);
  o.v.resize(std::size_t(test::count_of(o.kdims)));
  o.i.resize(o.v.size());
  for (std::size_t q = 0; q < to.size(); ++q)
    for (index_t j = 0; j < K; ++j) {
      o.v[std::size_t(to[q][std::size_t(j)])] = r.v[std::size_t(from[q][std::size_t(j)])];
      o.i[std::size_t(to[q][std::size_t(j)])] = r.i[std::size_t(from[q][std::size_t(j)])];
    }
  return o;
}

template <class T, class U>
std::size_t value_mismatches(const std::vector<T>& got, const std::vector<U>& want) {
  std::size_t first = 0;
  return sort_test::mismatches(got, want, first);
}

/// The reference rows of both orders (taken with keep >= K: their first K).
template <class T>
struct ref_pair {
  ref_rows<T> min, max;
};
template <class T>
ref_pair<T> ref_both(const std::vector<T>& e, const std::vector<index_t>& dims, int axis, index_t keep) {
  return {ref_select(e, dims, axis, keep, false), ref_select(e, dims, axis, keep, true)};
}

/// argmin_k / argmax_k / min_k / max_k<K> of x along `given` (an axis, maybe
/// counted from the end) against the reference rows of the elements computed
/// from the inputs (`ref`) and of the evaluated x (`ref_ev`): both orders.
template <int K, class X, class T>
void check_k(const X& x, int given, int axis, const ref_pair<T>& ref, const ref_pair<T>& ref_ev) {
  CAPTURE(K);
  CAPTURE(given);
  for (const bool largest : {false, true}) {
    CAPTURE(largest);
    const auto want = first_k(largest ? ref.max : ref.min, axis, K);
    const ufunc::shape ks = test::shape_of(want.kdims);
    const auto idx = largest ? (given % 2 ? ufunc::argmax_k<K>(x, ufunc::axis(given)) : ufunc::argmax_k<K>(x, given))
                             : (given % 2 ? ufunc::argmin_k<K>(x, given) : ufunc::argmin_k<K>(x, ufunc::axis(given)));
    CHECK(idx.shape() == ks);
    test::expect_equal(idx.to_host(), want.i);
    const auto vk = largest ? ufunc::max_k<K>(x, given) : ufunc::min_k<K>(x, ufunc::axis(given));
    CHECK(vk.values.shape() == ks);
    CHECK(vk.indices.shape() == ks);
    const auto vh = vk.values.to_host();
    const std::vector<T> vals(vh.begin(), vh.end());
    CHECK(value_mismatches(vals, want.v) == 0);
    test::expect_equal(vk.indices.to_host(), want.i);
    // The evaluated expression's rows sorted: the same values and indices.
    const auto want_ev = first_k(largest ? ref_ev.max : ref_ev.min, axis, K);
    CHECK(value_mismatches(vals, want_ev.v) == 0);
    test::expect_equal(vk.indices.to_host(), want_ev.i);
  }
}

/// Every K of the list along `given`: checked where K fits in the row,
/// value_error (before anything runs) where it does not.
template <class X, class T>
void check_all_k(const X& x, const std::vector<T>& elems, const std::vector<index_t>& dims, int given) {
  const int axis = given < 0 ? given + int(dims.size()) : given;
  const index_t L = dims[std::size_t(axis)];
  const index_t keep = std::min<index_t>(L, 64);
  const auto ref = ref_both(elems, dims, axis, keep);
  // x evaluated on its target (row-major, x's shape), copied back.
  const auto evh = ufunc::evaluate(ufunc::lazy(x)).to_host();
  REQUIRE(evh.size() == elems.size());
  const auto ref_ev = ref_both(std::vector<T>(evh.begin(), evh.end()), dims, axis, keep);
  for_each_k([&](auto kc) {
    constexpr int K = decltype(kc)::value;
    if (K <= L) {
      check_k<K>(x, given, axis, ref, ref_ev);
    } else {
      CAPTURE(K);
      const auto msg = test::message_of<ufunc::value_error>([&] { (void)ufunc::argmin_k<K>(x, given); });
      CHECK(test::contains(msg, "ufunc::argmin_k: K = " + std::to_string(K)));
      CHECK_THROWS_AS((void)ufunc::max_k<K>(x, given), ufunc::value_error);
    }
  });
}

/// Points on a grid: quarters in [-10, 10], or integers in [-3, 3] (more ties);
/// with `specials`, a few coordinates +-inf or NaN.
std::vector<float> points(std::size_t n, std::mt19937_64& g, bool coarse, bool specials) {
  std::vector<float> p(3 * n);
  for (auto& c : p) c = coarse ? float(int(g() % 7) - 3) : float(int(g() % 81) - 40) / 4.0f;
  if (specials)
    for (int s = 0; s < 3; ++s) {
      const float v = s == 0 ? NAN : (s == 1 ? INFINITY : -INFINITY);
      p[std::size_t(g() % p.size())] = v;
    }
  return p;
}

/// k nearest (and farthest) neighbours of vec<3> points: x_i (n points) against
/// y_j (m points), reduced over j in both orientations ((n,1,3) x (1,m,3) over
/// axis 1; (1,n,3) x (m,1,3) over axis 0), and an expression of it with
/// scalar leaves; the reference distances in double (exact on the grids).
template <class Tg>
void check_points(std::mt19937_64& g, index_t n, index_t m) {
  const bool coarse = g() % 2 == 0, specials = g() % 3 == 0;
  CAPTURE(n);
  CAPTURE(m);
  CAPTURE(coarse);
  CAPTURE(specials);
  const auto hx = points(std::size_t(n), g, coarse, specials), hy = points(std::size_t(m), g, coarse, specials);
  const auto d2 = ufunc::vectorize<Tg>(dist2_3{});
  for (int orient = 0; orient < 2; ++orient) {
    CAPTURE(orient);
    const auto X = orient ? test::make<Tg>(hx, {1, n, 3}) : test::make<Tg>(hx, {n, 1, 3});
    const auto Y = orient ? test::make<Tg>(hy, {m, 1, 3}) : test::make<Tg>(hy, {1, m, 3});
    const std::vector<index_t> dims = orient ? std::vector<index_t>{m, n} : std::vector<index_t>{n, m};
    std::vector<float> e(std::size_t(n * m));
    for (index_t i = 0; i < n; ++i)
      for (index_t j = 0; j < m; ++j) {
        const float d = static_cast<float>(test::ref_dist2(hx, i, hy, j));
        e[std::size_t(orient ? j * n + i : i * m + j)] = d;
      }
    const auto expr = d2.lazy(ufunc::vec<3>(X), ufunc::vec<3>(Y));
    const int given = orient ? (g() % 2 ? 0 : -2) : (g() % 2 ? 1 : -1);
    check_all_k(expr, e, dims, given);
    if (orient == 0 && g() % 2 == 0) {  // scalar leaves in the tree: 2 d + 1 (exact)
      std::vector<float> e2(e);
      for (auto& v : e2) v = 2.0f * v + 1.0f;
      check_all_k(expr * 2.0f + 1.0f, e2, dims, given);
    }
  }
}

/// (a_ip - b_jp)^2 over the shape (n, m, p) from A (n,1,p) and B (1,m,p)
/// (broadcast dims; no x_i / y_j split for any axis: the general kernel),
/// along each axis; and A (n,1,1) with B (1,m,1) (size-1 dims merged away:
/// pairwise again).
template <class Tg>
void check_broadcast_3d(std::mt19937_64& g, index_t n, index_t m, index_t p) {
  CAPTURE(n);
  CAPTURE(m);
  CAPTURE(p);
  auto draw = [&](std::size_t k) {
    std::vector<float> v(k);
    for (auto& x : v) x = float(int(g() % 9) - 4) / 2.0f;
    return v;
  };
  const auto ha = draw(std::size_t(n * p)), hb = draw(std::size_t(m * p));
  const auto A = test::make<Tg>(ha, {n, 1, p});
  const auto B = test::make<Tg>(hb, {1, m, p});
  const auto f = ufunc::vectorize<Tg>(sq_diff{});
  std::vector<float> e(std::size_t(n * m * p));
  for (index_t i = 0; i < n; ++i)
    for (index_t j = 0; j < m; ++j)
      for (index_t q = 0; q < p; ++q) {
        const float d = ha[std::size_t(i * p + q)] - hb[std::size_t(j * p + q)];
        e[std::size_t((i * m + j) * p + q)] = d * d;
      }
  const auto expr = f.lazy(A, B);
  for (int axis = 0; axis < 3; ++axis) check_all_k(expr, e, {n, m, p}, g() % 2 ? axis : axis - 3);
  // (n,1,1) x (1,m,1): the first coordinate alone.
  const auto A1 = ufunc::make_view<Tg>(A.data(), ufunc::shape{n, 1, 1}, {p, 1, 1});
  const auto B1 = ufunc::make_view<Tg>(B.data(), ufunc::shape{1, m, 1}, {1, p, 1});
  std::vector<float> e1(std::size_t(n * m));
  for (index_t i = 0; i < n; ++i)
    for (index_t j = 0; j < m; ++j) e1[std::size_t(i * m + j)] = e[std::size_t((i * m + j) * p)];
  check_all_k(f.lazy(A1, B1), e1, {n, m, 1}, 1);
}

/// Arrays and views of T (rank 1-3; NaN, -NaN, +-inf, +-0 and small values:
/// many ties) along a random axis: contiguous, transposed, every second
/// element, reversed and permuted (sort_support.hpp's random views).
template <class Tg, class T>
void check_arrays(std::mt19937_64& g, int reps) {
  static const index_t extents[] = {1, 2, 3, 7, 17, 64, 65, 100};
  for (int r = 0; r < reps; ++r) {
    const int nd = 1 + int(g() % 3);
    std::vector<index_t> dims;
    for (int d = 0; d < nd; ++d) dims.push_back(extents[g() % 8]);
    if (nd <= 2 && g() % 3 == 0) dims[g() % dims.size()] = 255 + index_t(g() % 800);  // long rows or many of them
    std::vector<T> host;
    for (index_t i = 0; i < test::count_of(dims); ++i) host.push_back(sort_test::draw<T>(g));
    const auto base = sort_test::upload<Tg>(host, dims);
    const auto vc = sort_test::random_view(base, host, g);
    const auto vdims = test::dims_of(vc.v.shape());
    const int axis = int(g() % unsigned(nd));
    CAPTURE(test::type_name<T>());
    CAPTURE(test::dims_str(vdims));
    CAPTURE(vc.what);
    check_all_k(vc.v, vc.elems, vdims, g() % 2 ? axis : axis - nd);
  }
}

/// Integer distances |a_i - b_j| (int keys, ties everywhere).
template <class Tg>
void check_int_pairs(std::mt19937_64& g, index_t n, index_t m) {
  CAPTURE(n);
  CAPTURE(m);
  std::vector<int> a(static_cast<std::size_t>(n)), b(static_cast<std::size_t>(m));
  for (auto& v : a) v = int(g() % 41) - 20;
  for (auto& v : b) v = int(g() % 41) - 20;
  const auto A = test::make<Tg>(a, {n, 1});
  const auto B = test::make<Tg>(b, {1, m});
  std::vector<int> e(std::size_t(n * m));
  for (index_t i = 0; i < n; ++i)
    for (index_t j = 0; j < m; ++j) e[std::size_t(i * m + j)] = std::abs(a[std::size_t(i)] - b[std::size_t(j)]);
  check_all_k(ufunc::vectorize<Tg>(abs_diff{}).lazy(A, B), e, {n, m}, 1);
}

const std::pair<index_t, index_t> point_sizes[] = {{1, 1},   {1, 1000}, {3, 17},  {17, 3},   {17, 64},
                                                   {64, 255}, {255, 7},  {3, 1000}, {1000, 64}, {255, 1000}};

struct reset_at_exit {
  ~reset_at_exit() { ufunc::reset_memory_resource(); }
};

/// select_k_list.hpp's lists of K for chunks of a row, merged (the test case below).
template <int K>
void check_list_merge(std::mt19937_64& g) {
  CAPTURE(K);
  using ufunc::detail::k_list;
  using ufunc::detail::select_order;
  for (int c = 0; c < 300; ++c) {
    const index_t R = K + index_t(g() % 60);
    std::vector<float> row(static_cast<std::size_t>(R));
    for (auto& v : row) v = sort_test::draw<float>(g);
    for (const bool largest : {false, true}) {
      CAPTURE(c);
      CAPTURE(largest);
      const auto want = ref_select(row, {R}, 0, K, largest);
      auto run = [&](auto order_tag, auto unrolled) {
        using order = decltype(order_tag);
        CAPTURE(decltype(unrolled)::value);
        auto put = [&](auto& list, float x, auto ix) {
          if constexpr (decltype(unrolled)::value)
            return list.template insert_unrolled<order>(x, ix);
          else
            return list.template insert_shift<order>(x, ix);
        };
        std::vector<float> pv;
        std::vector<index_t> pi;
        for (index_t j0 = 0; j0 < R;) {
          const index_t len = std::min<index_t>(R - j0, 1 + index_t(g() % (K + 3)));
          k_list<float, K, std::uint32_t> l;
          l.template clear<order>();
          for (index_t j = j0; j < j0 + len; ++j)
            if (order::may_enter(row[std::size_t(j)], l.worst())) put(l, row[std::size_t(j)], std::uint32_t(j - j0));
          std::vector<float> v(K);
          std::vector<index_t> i(K);
          ufunc::detail::store_k_list(l, v.data(), i.data(), 0, j0, true);
          pv.insert(pv.end(), v.begin(), v.end());
          pi.insert(pi.end(), i.begin(), i.end());
          j0 += len;
        }
        k_list<float, K, index_t> m;
        m.template clear<order>();
        for (std::size_t at = 0; at < pv.size(); at += K)
          for (int s = 0; s < K; ++s)
            if (!put(m, pv[at + std::size_t(s)], pi[at + std::size_t(s)])) break;
        std::vector<float> v(K);
        std::vector<index_t> i(K);
        ufunc::detail::store_k_list(m, v.data(), i.data(), 0, 0, false);
        CHECK(value_mismatches(v, want.v) == 0);
        test::expect_equal(i, want.i);
      };
      for (const bool unrolled : {false, true}) {
        if (largest && unrolled) run(select_order<float, true>{}, std::true_type{});
        if (largest && !unrolled) run(select_order<float, true>{}, std::false_type{});
        if (!largest && unrolled) run(select_order<float, false>{}, std::true_type{});
        if (!largest && !unrolled) run(select_order<float, false>{}, std::false_type{});
      }
    }
  }
}

}  // namespace

TEST_CASE("select_k: k nearest and farthest vec<3> points, both orientations, ragged sizes, ties, NaN and inf") {
  std::mt19937_64 g(test::fresh_seed());
  test::for_each_target([&](auto tg) {
    using Tg = decltype(tg);
    for (const auto& nm : point_sizes) check_points<Tg>(g, nm.first, nm.second);
  });
}

TEST_CASE("select_k: long rows cut into chunks (few outputs) and merged") {
  std::mt19937_64 g(test::fresh_seed());
  test::for_each_target([&](auto tg) {
    using Tg = decltype(tg);
    check_points<Tg>(g, 5, 20001);
    check_points<Tg>(g, 1, 70000 + index_t(g() % 3000));
    check_int_pairs<Tg>(g, 2, 50001);
  });
}

TEST_CASE("select_k: a 3-D expression with broadcast dims along each axis, and size-1 dims merged away") {
  std::mt19937_64 g(test::fresh_seed());
  test::for_each_target([&](auto tg) {
    using Tg = decltype(tg);
    check_broadcast_3d<Tg>(g, 17, 64, 3);
    check_broadcast_3d<Tg>(g, 3, 255, 7);
    check_broadcast_3d<Tg>(g, 64, 1, 65);
  });
}

TEST_CASE("select_k: arrays and strided, reversed and transposed views of float, double, int and half, NaNs and signed zeros") {
  std::mt19937_64 g(test::fresh_seed());
  test::for_each_target([&](auto tg) {
    using Tg = decltype(tg);
    check_arrays<Tg, float>(g, 12);
    check_arrays<Tg, double>(g, 6);
    check_arrays<Tg, int>(g, 6);
    check_arrays<Tg, __half>(g, 3);
    check_int_pairs<Tg>(g, 255, 1000);
    check_int_pairs<Tg>(g, 1000, 17);
  });
}

TEST_CASE("select_k: the host's results are the same bytes at 1, 2 and 16 threads") {
  using H = ufunc::target::host;
  std::mt19937_64 g(test::fresh_seed());
  const int before = omp_get_max_threads();
  const auto d2 = ufunc::vectorize<H>(dist2_3{});
  for (const auto& nm : {std::pair<index_t, index_t>{300, 2000}, {3, 100000}}) {
    const index_t n = nm.first, m = nm.second;
    CAPTURE(n);
    CAPTURE(m);
    const auto hx = points(std::size_t(n), g, true, false), hy = points(std::size_t(m), g, true, false);
    const auto X = test::make<H>(hx, {n, 1, 3});
    const auto Y = test::make<H>(hy, {1, m, 3});
    std::vector<std::vector<index_t>> idx;
    std::vector<std::vector<float>> vals;
    for (int threads : {1, 2, 16}) {
      omp_set_num_threads(threads);
      const auto r = ufunc::min_k<16>(d2.lazy(ufunc::vec<3>(X), ufunc::vec<3>(Y)), ufunc::axis(1));
      idx.push_back(r.indices.to_host());
      vals.push_back(r.values.to_host());
    }
    omp_set_num_threads(before);
    for (std::size_t t = 1; t < idx.size(); ++t) {
      CHECK(idx[t] == idx[0]);
      CHECK(std::memcmp(vals[t].data(), vals[0].data(), sizeof(float) * vals[0].size()) == 0);
    }
  }
}

TEST_CASE("select_k: the row split's plan covers each row once, within its limits") {
  using ufunc::detail::plan_select_k_split;
  std::mt19937_64 g(test::fresh_seed());
  for (int c = 0; c < 2000; ++c) {
    const index_t nout = 1 + index_t(g() % 5000), R = 1 + index_t(g() % 3000000);
    const int k = 1 + int(g() % 64);
    const ufunc::detail::select_k_split_limits lim{index_t(1) << (g() % 9), 1 + index_t(g() % 2000),
                                                   index_t(1) << (g() % 12), index_t(1) << (g() % 9),
                                                   index_t(1) << (12 + g() % 14), index_t(1) << (10 + g() % 14)};
    CAPTURE(nout);
    CAPTURE(R);
    CAPTURE(k);
    const auto sp = plan_select_k_split(nout, R, k, lim);
    REQUIRE(sp.chunks >= 1);
    CHECK(sp.chunks * sp.chunk_len >= R);
    CHECK((sp.chunks - 1) * sp.chunk_len < R);
    CHECK(sp.chunk_len <= lim.max_chunk);
    const index_t blocks = (nout + lim.per_block - 1) / lim.per_block;
    if (R > lim.max_chunk) continue;  // cut for max_chunk's sake alone (checked above)
    if (blocks >= lim.want_blocks) CHECK(sp.chunks == 1);
    if (sp.chunks > 1) {
      CHECK(sp.chunk_len % lim.align == 0);
      CHECK(sp.chunks * nout * k <= std::max<index_t>(lim.max_entries, 2 * nout * k));
    }
  }
}

TEST_CASE("select_k: lists of chunks shorter than K merge with their empty entries last, both insert variants") {
  // The engines' list (select_k_list.hpp) directly: a row of tied, NaN and
  // infinite values cut into chunks of 1..K+3 elements; each chunk's list
  // (empty entries where the chunk is shorter than K) merged as the engines
  // merge them, against the row's stable sort. Both ways of inserting: the
  // host's (insert_shift) and the GPU kernels' branch-free one
  // (insert_unrolled), which only a GPU run exercises otherwise.
  std::mt19937_64 g(test::fresh_seed());
  check_list_merge<1>(g);
  check_list_merge<7>(g);
  check_list_merge<64>(g);
}

TEST_CASE("select_k: a bad axis, a 0-d input and K past the axis throw typed errors before any allocation") {
  namespace alloc = ufunc::detail::testing;
  test::for_each_target([&](auto tg) {
    using Tg = decltype(tg);
    const auto x = ufunc::zeros<float, Tg>(ufunc::shape{3, 4});
    const auto d2 = ufunc::vectorize<Tg>(sq_diff{});
    const auto e = d2.lazy(x, 1.0f);
    const auto scalar = ufunc::zeros<float, Tg>(ufunc::shape{});
    const long long a0 = alloc::allocation_attempts();
    const auto am = test::message_of<ufunc::shape_error>([&] { (void)ufunc::argmin_k<2>(e, 2); });
    CHECK(test::contains(am, "ufunc::argmin_k: axis 2"));
    CHECK_THROWS_AS((void)ufunc::argmax_k<2>(x, -3), ufunc::shape_error);
    CHECK_THROWS_AS((void)ufunc::min_k<2>(e, ufunc::axis(5)), ufunc::shape_error);
    CHECK(test::contains(test::message_of<ufunc::shape_error>([&] { (void)ufunc::max_k<1>(scalar); }), "0 dimensions"));
    const auto km = test::message_of<ufunc::value_error>([&] { (void)ufunc::argmin_k<5>(e); });
    CHECK(test::contains(km, "ufunc::argmin_k: K = 5 is more than the extent 4 of axis -1 of shape (3,4)"));
    CHECK_THROWS_AS((void)ufunc::argmax_k<4>(x, 0), ufunc::value_error);
    CHECK_THROWS_AS((void)ufunc::max_k<4>(e, ufunc::axis(0)), ufunc::value_error);
    CHECK(alloc::allocation_attempts() == a0);
    CHECK(ufunc::argmax_k<3>(x, 0).shape() == ufunc::shape({3, 4}));
    CHECK(ufunc::min_k<4>(e).values.shape() == ufunc::shape({3, 4}));
    // Zero outputs: an empty result, nothing run.
    const auto z = ufunc::zeros<float, Tg>(ufunc::shape{0, 5});
    CHECK(ufunc::argmin_k<5>(z, 1).shape() == ufunc::shape({0, 5}));
    CHECK_THROWS_AS((void)ufunc::argmin_k<1>(z, 0), ufunc::value_error);
  });
}

TEST_CASE("select_k: an allocation refused at any point is out_of_memory and leaks nothing") {
  namespace alloc = ufunc::detail::testing;
  test::for_each_target([&](auto tg) {
    using Tg = decltype(tg);
    std::mt19937_64 g(test::fresh_seed());
    const auto hx = points(7, g, false, false), hy = points(30000, g, false, false);
    const auto X = test::make<Tg>(hx, {7, 1, 3});
    const auto Y = test::make<Tg>(hy, {1, 30000, 3});
    const auto d2 = ufunc::vectorize<Tg>(dist2_3{});
    const auto x2 = ufunc::zeros<float, Tg>(ufunc::shape{40, 30});
    const std::vector<std::function<void()>> calls = {
        [&] { (void)ufunc::min_k<16>(d2.lazy(ufunc::vec<3>(X), ufunc::vec<3>(Y)), ufunc::axis(1)); },  // split rows
        [&] { (void)ufunc::argmax_k<3>(x2.view().transposed(), 0); }};                               // axis moved back
    for (std::size_t c = 0; c < calls.size(); ++c) {
      CAPTURE(c);
      calls[c]();
      ufunc::synchronize();
      const long long live0 = alloc::live_allocations(), a = alloc::allocation_attempts();
      calls[c]();
      ufunc::synchronize();
      const long long n = alloc::allocation_attempts() - a;
      CHECK(n >= 2);
      CHECK(alloc::live_allocations() == live0);
      for (long long k = 1; k <= n; ++k) {
        CAPTURE(k);
        bool oom = false;
        alloc::set_allocation_limit(k);
        try {
          calls[c]();
        } catch (const ufunc::out_of_memory&) {
          oom = true;
        }
        alloc::clear_allocation_limit();
        ufunc::synchronize();
        CHECK(oom);
        CHECK(alloc::live_allocations() == live0);
      }
    }
  });
}

TEST_CASE("select_k: no temporary of the pairs' size (largest allocation, device target)") {
  using Tg = ufunc::target::device;
  std::mt19937_64 g(test::fresh_seed());
  const auto d2 = ufunc::vectorize<Tg>(dist2_3{});
  const auto f = ufunc::vectorize<Tg>(sq_diff{});
  struct shape_case {
    index_t n, m;
  };
  for (const auto nm : {shape_case{2000, 3000}, shape_case{3, 200000}}) {
    CAPTURE(nm.n);
    CAPTURE(nm.m);
    const auto hx = points(std::size_t(nm.n), g, false, false), hy = points(std::size_t(nm.m), g, false, false);
    const auto X = test::make<Tg>(hx, {nm.n, 1, 3});
    const auto Y = test::make<Tg>(hy, {1, nm.m, 3});
    select_k_test::peak_resource r;
    {
      reset_at_exit guard;
      ufunc::set_memory_resource(r);
      const auto nn = ufunc::argmin_k<16>(d2.lazy(ufunc::vec<3>(X), ufunc::vec<3>(Y)), ufunc::axis(1));
      ufunc::synchronize();
      CHECK(nn.shape() == ufunc::shape({nm.n, 16}));
    }
    INFO("largest allocation " << r.largest << " bytes in " << r.count);
    CHECK(r.count >= 1);
    CHECK(r.largest <= std::size_t(nm.n * nm.m) * sizeof(float) / 8);
  }
  // The general kernel: (n, m, p) from (n,1,p) and (1,m,p) along axis 1.
  const index_t n = 300, m = 400, p = 5;
  std::vector<float> ha(std::size_t(n * p)), hb(std::size_t(m * p));
  for (auto& v : ha) v = float(g() % 100);
  for (auto& v : hb) v = float(g() % 100);
  const auto A = test::make<Tg>(ha, {n, 1, p});
  const auto B = test::make<Tg>(hb, {1, m, p});
  select_k_test::peak_resource r;
  {
    reset_at_exit guard;
    ufunc::set_memory_resource(r);
    const auto v = ufunc::max_k<16>(f.lazy(A, B), ufunc::axis(1));
    ufunc::synchronize();
    CHECK(v.values.shape() == ufunc::shape({n, 16, p}));
  }
  INFO("largest allocation " << r.largest << " bytes");
  CHECK(r.largest <= std::size_t(n * m * p) * sizeof(float) / 2);
}
