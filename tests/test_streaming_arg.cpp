// Streaming host data through the device, second part (issue 14): argmin and
// argmax of host inputs stream in chunks (along kept dims: each chunk its rows;
// along reduced dims: (value, index) partials whose indices are shifted by the
// chunk's place and folded in order), and a call returning new std::vectors
// constructs them while the pipeline runs (in the OpenMP team, on the helper
// thread, or at the first drain: detail::late_build). Indices must
// equal the in-memory device call's and a plain host loop's exactly, with NaNs
// and ties in the data. On the host backend nothing streams and the same checks
// hold against the host loop. Few call sites (each costs nvcc time): the cases
// loop over shapes, limits and input kinds.
#include "streaming_support.hpp"

#include <omp.h>

using namespace streaming_test;

namespace {

/// Integers in [-20, 20] (many ties; a zero is sometimes -0.0, equal to 0.0),
/// and with `nans` about one NaN in 400.
std::vector<float> tie_nan_data(std::size_t n, std::uint64_t seed, bool nans) {
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<int> v(-20, 20), coin(0, 399);
  std::vector<float> x(n);
  for (auto& e : x) {
    e = static_cast<float>(v(rng));
    if (e == 0.0f && coin(rng) < 200) e = -0.0f;
    if (nans && coin(rng) == 0) e = std::nanf("");
  }
  return x;
}

/// NumPy's pick over count elements from x[start] at stride: the first NaN, else
/// the first smallest (largest) value.
index_t ref_pick(const std::vector<float>& x, index_t start, index_t count, index_t stride, bool max) {
  index_t best = 0;
  float bv = x[static_cast<std::size_t>(start)];
  for (index_t i = 1; i < count && !std::isnan(bv); ++i) {
    const float v = x[static_cast<std::size_t>(start + i * stride)];
    if (std::isnan(v) || (max ? v > bv : v < bv)) best = i, bv = v;
  }
  return best;
}
/// The host reference of an (m, n) array: axis 0, 1 or -1 (the whole array).
std::vector<index_t> ref_arg(const std::vector<float>& x, index_t m, index_t n, int axis, bool max) {
  std::vector<index_t> r;
  if (axis < 0) r.push_back(ref_pick(x, 0, m * n, 1, max));
  if (axis == 0)
    for (index_t j = 0; j < n; ++j) r.push_back(ref_pick(x, j, m, n, max));
  if (axis == 1)
    for (index_t i = 0; i < m; ++i) r.push_back(ref_pick(x, i * n, n, 1, max));
  return r;
}

struct ident_fn {
  UFUNC_HD float operator()(float v) const { return v; }
};
struct add_fn {
  UFUNC_HD float operator()(float a, float b) const { return a + b; }
};
/// With a row broadcast along dim 0, only dim 0 can be the chunked axis: a
/// whole reduction then reduces each chunk over two axes, and the chunk's index
/// offset is first row x n.
const auto add2 = ufunc::vectorize(add_fn{}, "add2");
/// A device ufunc: `ident.lazy(host view)` is a device expression with a host
/// leaf, which streams (a host view given directly reduces on the host).
const auto ident = ufunc::vectorize(ident_fn{}, "ident");

/// Every form of one reduction `red` (argmin or argmax) of input `x` of shape
/// (m, n) (a 1-D input when n == 0: std::vector), against the device-resident
/// call on `d` and the host loop.
template <class Red, class X, class D>
void check_forms(const Red& red, bool max, const X& x, const D& d, const std::vector<float>& h, index_t m, index_t n) {
  const bool flat = n == 0;
  const index_t rows = flat ? 1 : m, cols = flat ? m : n;
  // Whole: a host value, and keepdims (a one-element array per dim).
  const index_t w = red(d);
  CHECK(w == ref_arg(h, rows, cols, -1, max)[0]);
  CHECK(red(x) == w);
  CHECK(red(x, ufunc::keepdims).to_host() == red(d, ufunc::keepdims).to_host());
  for (int a = 0; a < (flat ? 1 : 2); ++a) {
    INFO("axis " << a);
    const auto want = red(d, ufunc::axis(a)).to_host();
    CHECK(want == (flat ? ref_arg(h, rows, cols, -1, max) : ref_arg(h, rows, cols, a, max)));
    CHECK(red(x, ufunc::axis(a)).to_host() == want);
    CHECK(red(x, ufunc::axis(a), ufunc::keepdims).to_host() == want);
    // out(...): exactly the result's shape; other elements are not touched.
    const shape rs = flat ? shape{} : shape{a == 0 ? cols : rows};
    ufunc::array<index_t> o = ufunc::full<index_t>(rs, -7);
    red(x, ufunc::axis(a), ufunc::out(o));
    CHECK(o.to_host() == want);
  }
}

}  // namespace

TEST_CASE("streaming arg: argmin and argmax of host inputs in many chunks equal the in-memory call exactly") {
  for (const auto& mn : std::vector<std::pair<index_t, index_t>>{{203, 31}, {37, 53}, {5, 1201}, {1501, 3}, {1, 777}}) {
    for (const int k : {1, 4}) {  // a kept chunk holds about k + 4 rows, a partial one k
      for (const bool nans : {false, true}) {
        const index_t m = mn.first, n = mn.second;
        const std::uint64_t seed = test::fresh_seed();
        INFO("seed " << seed << ", shape (" << m << ", " << n << "), k " << k << ", nans " << nans);
        const shape s{m, n};
        const auto h = tie_nan_data(static_cast<std::size_t>(m * n), seed, nans);
        const auto d = ufunc::to_device(h, s);
        const auto d1 = ufunc::to_device(h);
        ufunc::pinned_array<float> p(s);
        std::copy(h.begin(), h.end(), p.data());
        const auto hv = ufunc::make_view<ufunc::target::host>(h.data(), s);
        const auto row = tie_nan_data(static_cast<std::size_t>(n), seed + 1, false);
        const auto drow = ufunc::to_device(row);
        const auto rowv = ufunc::make_view<ufunc::target::host>(row.data(), shape{n});
        std::vector<float> hsum(h.size());  // exact: small integers (NaNs stay NaN)
        for (std::size_t i = 0; i < h.size(); ++i) hsum[i] = h[i] + row[i % static_cast<std::size_t>(n)];
        // Below the input's size (m n 4 bytes) for most shapes: up to hundreds of
        // chunks (3 chunks of k rows, 3 partial rows of 16-byte pairs, the
        // broadcast row once; whole reductions of the wide shapes fit in a few).
        const limit_scope lim(static_cast<std::size_t>(3 * 4 * n * k + 3 * 16 * n + 4 * n + 1024));
        for (const bool max : {false, true}) {
          INFO(std::string(max ? "argmax" : "argmin"));
          auto each = [&](const auto& red) {
            {
              INFO("pinned_array");
              check_forms(red, max, p, d, h, m, n);
            }
            {
              INFO("pageable host view in a device expression");
              check_forms(red, max, ident.lazy(hv), d, h, m, n);
            }
            {
              INFO("pageable host views, one broadcast along dim 0, in a device expression");
              check_forms(red, max, add2.lazy(hv, rowv), add2.lazy(d, drow), hsum, m, n);
            }
            {
              INFO("std::vector (1-D)");
              check_forms(red, max, h, d1, h, m * n, 0);
            }
          };
          if (max) each(ufunc::argmax);
          else each(ufunc::argmin);
        }
        CHECK(same_bits(p.to_host(), h));  // inputs are only read
      }
    }
  }
}

TEST_CASE("streaming arg: refusals and the chunk count") {
  const auto h = tie_nan_data(4000, test::fresh_seed(), true);
  ufunc::pinned_array<float> p(shape{100, 40});
  std::copy(h.begin(), h.end(), p.data());
  const limit_scope lim(3 * 4 * 40 + 3 * 16 * 40 + 1024);
  // argmin/argmax take one axis, streamed or not, before any work.
  CHECK_THROWS_AS(ufunc::argmax(p, ufunc::axes{0, 1}), ufunc::shape_error);
  // An empty reduction has no index (value_error), as in memory.
  CHECK_THROWS_AS(ufunc::argmax(std::vector<float>{}), ufunc::value_error);
#if defined(UFUNC_TESTING) && defined(UFUNC_BACKEND_CUDA)
  (void)ufunc::argmax(p, ufunc::axis(0));
  CHECK(ufunc::detail::testing::pipeline().chunks.load() >= 10);  // 16 KB through a 3 KB limit
  (void)ufunc::argmax(h);
  CHECK(ufunc::detail::testing::pipeline().chunks.load() >= 10);
  // Issue 38: the chunks run the engine with the call's own parsed controls;
  // none parses trailing arguments again (each chunk did before: 1 + chunks).
  {
    namespace tr = ufunc::detail::testing;
    long r0 = tr::controls_reads().load();
    const auto sums = ufunc::sum(p, ufunc::axis(0)).to_host();
    CHECK(tr::controls_reads().load() - r0 == 1);
    CHECK(tr::pipeline().chunks.load() >= 10);
    r0 = tr::controls_reads().load();
    const auto idx = ufunc::argmax(p, ufunc::axis(0)).to_host();
    CHECK(tr::controls_reads().load() - r0 == 1);
    CHECK(std::vector<index_t>(idx.begin(), idx.end()) == ref_arg(h, 100, 40, 0, true));
    for (std::size_t j = 0; j < 40; ++j) {  // small integers: the float sums are exact (NaN stays NaN)
      float s = 0.f;
      for (std::size_t i = 0; i < 100; ++i) s += h[i * 40 + j];
      CHECK((sums[j] == s || (std::isnan(sums[j]) && std::isnan(s))));
    }
  }
#endif
#if defined(UFUNC_TESTING)
  // Every refused allocation (chunk buffers, partials, the engine's
  // temporaries) frees what the call took; the next call gives the same indices.
  namespace alloc = ufunc::detail::testing;
  const auto want0 = ufunc::argmax(p, ufunc::axis(0)).to_host();
  const long long live1 = alloc::live_allocations(), a1 = alloc::allocation_attempts();
  CHECK(ufunc::argmax(p, ufunc::axis(0)).to_host() == want0);
  const long long nr = alloc::allocation_attempts() - a1;
  CHECK(alloc::live_allocations() == live1);
  for (long long k = 1; k <= nr; ++k) {
    INFO("allocation " << k << " of " << nr << " refused");
    alloc::set_allocation_limit(k);
    CHECK_THROWS_AS((void)ufunc::argmax(p, ufunc::axis(0)).to_host(), ufunc::out_of_memory);
    alloc::clear_allocation_limit();
    CHECK(alloc::live_allocations() == live1);
  }
  CHECK(ufunc::argmax(p, ufunc::axis(0)).to_host() == want0);
#endif
}

namespace {
struct gauss_fn {
  UFUNC_HD float operator()(float x) const { return 0.3989422804f * expf(-0.5f * x * x); }
};
struct split_fn {
  UFUNC_HD cuda::std::tuple<float, double> operator()(float x) const {
    return cuda::std::make_tuple(x * 0.5f, static_cast<double>(x) * 3.0);
  }
};
const auto gauss = ufunc::vectorize(gauss_fn{}, "gauss");
const auto split2 = ufunc::vectorize(split_fn{}, "split2");

#if defined(UFUNC_TESTING)
/// Arms a test fault (`arm(true)`), expects `call` to throw E, disarms it, and
/// checks that nothing leaked: the live device allocations are `live` again and
/// no staging block is out.
template <class E, class Arm, class Call>
void check_clean_failure(const Arm& arm, const Call& call, long long live) {
  arm(true);
  CHECK_THROWS_AS((void)call(), E);
  arm(false);
  CHECK(ufunc::detail::testing::live_allocations() == live);
  CHECK(staging_out() == 0u);
}
/// The fault of a failed kernel launch at chunk k (detail::testing::pipeline).
auto fault_at_chunk(long long k) {
  return [k](bool on) {
    if (on) ufunc::detail::testing::set_pipeline_fault(k);
    else ufunc::detail::testing::clear_pipeline_fault();
  };
}
/// The fault of a bad_alloc while the result vectors are built.
void late_alloc_fault(bool on) { ufunc::detail::testing::set_late_alloc_fault(on); }
#endif
}  // namespace

/// Sets detail::late_alloc_on_thread for a scope (the result vectors of a
/// streamed call constructed on another thread, or on the calling one).
struct late_mode_scope {
  bool was;
  explicit late_mode_scope(bool on_thread) : was(ufunc::detail::late_alloc_on_thread().exchange(on_thread)) {}
  ~late_mode_scope() { ufunc::detail::late_alloc_on_thread() = was; }
  late_mode_scope(const late_mode_scope&) = delete;
  late_mode_scope& operator=(const late_mode_scope&) = delete;
};

TEST_CASE("streaming: result std::vectors constructed while the pipeline runs equal the in-memory call") {
  constexpr std::size_t threshold = ufunc::detail::late_alloc_min_bytes / sizeof(float);
  const std::vector<std::size_t> sizes{std::size_t(1000), threshold - 1, threshold, std::size_t(300001),
                                       (std::size_t(1) << 20) + 3};
  int ways[3] = {0, 0, 0};  // calls whose vectors were built each way (detail::late_build)
  for (const bool on_thread : {true, false}) {
  for (const std::size_t n : sizes) {
    for (const std::size_t limit : {std::size_t(0), std::size_t(3 * 8 * 4096 + 4096)}) {  // none, or 4096 elements a chunk
      const std::uint64_t seed = test::fresh_seed();
      INFO("seed " << seed << ", n " << n << ", limit " << limit << ", result vectors made on "
                    << (on_thread ? "another thread" : "the calling thread"));
      const auto h = test::random_vector<float>(n, seed);
      const auto d = ufunc::to_device(h);
      const auto want = gauss(d).to_host();
      const auto want2 = split2(d);
      const limit_scope lim(limit);
      const late_mode_scope mode(on_thread);
      const std::vector<float> got = gauss(h);
#if defined(UFUNC_TESTING)
      if (ufunc::cuda_backend && n >= threshold) {  // in the team when small, else on the helper (or here)
        const auto& tp = ufunc::detail::testing::pipeline();
        const int how = tp.late_build.load();
        const bool small = tp.chunks.load() <= tp.buffers.load() && omp_get_max_threads() > 1;
        using lb = ufunc::detail::late_build;
        if (!on_thread) CHECK(how == static_cast<int>(lb::at_first_drain));
        else if (small) CHECK(how == static_cast<int>(lb::in_team));
        else CHECK((how == static_cast<int>(lb::helper) || how == static_cast<int>(lb::at_first_drain)));
        if (how >= 0 && how < 3) ++ways[how];
      }
#endif
      CHECK(same_bits(got, want));
      const auto got2 = split2(h);
      CHECK(same_bits(std::get<0>(got2), std::get<0>(want2).to_host()));
      CHECK(same_bits(std::get<1>(got2), std::get<1>(want2).to_host()));
    }
  }
  }
#if defined(UFUNC_TESTING)
  if (ufunc::cuda_backend && omp_get_max_threads() > 1)  // every way ran
    CHECK((ways[0] > 0 && ways[1] > 0 && ways[2] > 0));
#else
  (void)ways;
#endif
}

#if defined(UFUNC_TESTING)
TEST_CASE("streaming: a failure with late result vectors drains, frees and keeps its type; arg reductions too") {
  // Also a bad_alloc from the thread constructing the result vectors.
  if (!ufunc::cuda_backend) return;  // the host backend has no pipeline to interrupt
  namespace tst = ufunc::detail::testing;
  const std::uint64_t seed = test::fresh_seed();
  INFO("seed " << seed);
  const std::size_t n = 3 * ufunc::detail::late_alloc_min_bytes / sizeof(float);
  const auto h = test::random_vector<float>(n, seed);
  const auto hn = tie_nan_data(n, seed + 1, true);
  const auto want = gauss(ufunc::to_device(h)).to_host();
  const index_t want_arg = ufunc::argmax(ufunc::to_device(hn));
  const limit_scope lim(3 * 8 * 16384);  // 16384 elements a chunk: 12 chunks
  CHECK(same_bits(gauss(h), want));      // warm: staging cache and streams exist
  const long long chunks = tst::pipeline().chunks.load();
  REQUIRE(chunks >= 8);
  CHECK(ufunc::argmax(hn) == want_arg);
  const long long achunks = tst::pipeline().chunks.load();
  REQUIRE(achunks >= 4);
  const long long live0 = tst::live_allocations();
  const auto call = [&] { return gauss(h); };
  for (const long long k : {0LL, 1LL, 3LL, chunks / 2, chunks - 1}) {
    INFO("fault at chunk " << k << " of " << chunks);
    check_clean_failure<ufunc::cuda_error>(fault_at_chunk(k), call, live0);
    CHECK(same_bits(gauss(h), want));
  }
  for (const bool on_thread : {true, false}) {
    INFO("the result vectors' allocation fails (bad_alloc on " << (on_thread ? "their thread" : "the calling thread")
                                                                << ")");
    const late_mode_scope mode(on_thread);
    check_clean_failure<std::bad_alloc>(late_alloc_fault, call, live0);
    CHECK(same_bits(gauss(h), want));
  }
  if (omp_get_max_threads() > 1) {
    // Without the limit the call is small: the result vector is built on this
    // thread while the other OpenMP threads stage and enqueue the chunks.
    ufunc::set_device_memory_limit(0);
    const std::size_t n2 = (std::size_t(1) << 20) + 3;
    const auto h2 = test::random_vector<float>(n2, seed + 2);
    const auto want2 = gauss(ufunc::to_device(h2)).to_host();
    CHECK(same_bits(gauss(h2), want2));
    REQUIRE(tst::pipeline().late_build.load() == static_cast<int>(ufunc::detail::late_build::in_team));
    const long long chunks2 = tst::pipeline().chunks.load();
    const long long live2 = tst::live_allocations();  // the staging cache may have grown for this size
    const auto call2 = [&] { return gauss(h2); };
    for (long long k = 0; k < chunks2; ++k) {
      INFO("built in the team: fault at chunk " << k << " of " << chunks2);
      check_clean_failure<ufunc::cuda_error>(fault_at_chunk(k), call2, live2);
    }
    check_clean_failure<std::bad_alloc>(late_alloc_fault, call2, live2);
    CHECK(same_bits(gauss(h2), want2));
    ufunc::set_device_memory_limit(3 * 8 * 16384);  // `lim`'s, for the argmax cases below
  }
  for (const long long k : {0LL, achunks / 2, achunks - 1}) {
    INFO("argmax: fault at chunk " << k << " of " << achunks);
    check_clean_failure<ufunc::cuda_error>(fault_at_chunk(k), [&] { return ufunc::argmax(hn); }, live0);
    CHECK(ufunc::argmax(hn) == want_arg);
  }
}
#endif
