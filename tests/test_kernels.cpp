// Index-space kernels and what they use: parallel_for over 1-, 2- and 3-D spaces
// (automatic and explicit launch configurations, streams, empty spaces, errors),
// the atomics under contention against serial references, and streams, events
// and timers. Every check runs on the host target, and on the CUDA target too in a
// CUDA build. One translation unit, to keep nvcc's share of CI time small.
#include "test_support.hpp"

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <limits>
#include <map>
#include <random>
#include <string>
#include <thread>
#include <type_traits>
#include <utility>
#include <vector>

using ufunc::index_t;
using ufunc::shape;

namespace {

/// Counts of visits per index must all be 1: nothing skipped, nothing done twice.
void expect_visited_once(const std::vector<int>& counts) {
  std::size_t bad = 0, first = 0;
  for (std::size_t i = 0; i < counts.size(); ++i)
    if (counts[i] != 1) {
      if (!bad) first = i;
      ++bad;
    }
  INFO(bad << " of " << counts.size() << " indices not visited exactly once; first " << first << " visited "
            << (bad ? counts[first] : 1) << " times");
  CHECK(bad == 0);
}

/// The arrays of one parallel_for check over the index space `s`: random ints x,
/// out (poisoned in test builds) and a visit count per index.
template <class Target>
struct visit_check {
  std::vector<int> hx;
  ufunc::array<int, Target> x;
  ufunc::array<long long, Target> out;
  ufunc::array<int, Target> cnt;

  visit_check(const shape& s, std::uint64_t seed)
      : hx(test::random_vector<int>(static_cast<std::size_t>(s.count()), seed, -1000, 1000)),
        x(ufunc::asarray<Target>(hx, s)),
        out(ufunc::empty<long long, Target>(s)),
        cnt(ufunc::zeros<int, Target>(s)) {
    // The arrays were prepared on the legacy default stream, which a non-blocking
    // stream given to parallel_for does not wait for (nor it for that): order both ways.
    ufunc::synchronize();
  }

  /// After the launch: out holds `want` and every index was visited exactly once.
  void expect(const std::vector<long long>& want) {
    ufunc::synchronize();
    test::expect_equal(out.to_host(), want);
    expect_visited_once(cnt.to_host());
  }
};

// ---- 1-D ------------------------------------------------------------------

/// out[i] = 3 x[i] - (i mod 7) over n indices; visits counted. `Ctl` is forwarded
/// (a launch_config and/or a stream).
template <class Target, class... Ctl>
void check_1d(index_t n, std::uint64_t seed, Ctl&&... ctl) {
  INFO("target " << Target::name << " n " << n << " seed " << seed);
  visit_check<Target> t(shape{n}, seed);
  auto xv = t.x.view();
  auto ov = t.out.view();
  auto cv = t.cnt.view();
  ufunc::parallel_for<Target>(
      n,
      [=] UFUNC_HD (std::size_t i) {
        ov[static_cast<index_t>(i)] = 3LL * xv[static_cast<index_t>(i)] - static_cast<long long>(i % 7);
        cv[static_cast<index_t>(i)] += 1;
      },
      std::forward<Ctl>(ctl)...);
  std::vector<long long> want(static_cast<std::size_t>(n));
  for (std::size_t i = 0; i < want.size(); ++i) want[i] = 3LL * t.hx[i] - static_cast<long long>(i % 7);
  t.expect(want);
}

// ---- 2-D and 3-D ------------------------------------------------------------

/// out(i, j) = x(i, j) + the encoded multi-index, visits counted.
template <class Target, class... Ctl>
void check_2d(index_t rows, index_t cols, std::uint64_t seed, Ctl&&... ctl) {
  INFO("target " << Target::name << " shape (" << rows << "," << cols << ") seed " << seed);
  const shape s{rows, cols};
  visit_check<Target> t(s, seed);
  auto xv = t.x.view();
  auto ov = t.out.view();
  auto cv = t.cnt.view();
  ufunc::parallel_for<Target>(
      s,
      [=] UFUNC_HD (std::size_t i, std::size_t j) {
        ov(i, j) = xv(i, j) + static_cast<long long>(i) * 1000003LL + static_cast<long long>(j);
        cv(i, j) += 1;
      },
      std::forward<Ctl>(ctl)...);
  std::vector<long long> want(t.hx.size());
  for (index_t i = 0; i < rows; ++i)
    for (index_t j = 0; j < cols; ++j) {
      const auto p = static_cast<std::size_t>(i * cols + j);
      want[p] = t.hx[p] + i * 1000003LL + j;
    }
  t.expect(want);
}

template <class Target, class... Ctl>
void check_3d(index_t d0, index_t d1, index_t d2, std::uint64_t seed, Ctl&&... ctl) {
  INFO("target " << Target::name << " shape (" << d0 << "," << d1 << "," << d2 << ") seed " << seed);
  const shape s{d0, d1, d2};
  visit_check<Target> t(s, seed);
  auto xv = t.x.view();
  auto ov = t.out.view();
  auto cv = t.cnt.view();
  ufunc::parallel_for<Target>(
      s,
      [=] UFUNC_HD (std::size_t i, std::size_t j, std::size_t k) {
        ov(i, j, k) = xv(i, j, k) + static_cast<long long>(i) * 1000003LL * 1009LL + static_cast<long long>(j) * 1009LL +
                      static_cast<long long>(k);
        cv(i, j, k) += 1;
      },
      std::forward<Ctl>(ctl)...);
  std::vector<long long> want(t.hx.size());
  for (index_t i = 0; i < d0; ++i)
    for (index_t j = 0; j < d1; ++j)
      for (index_t k = 0; k < d2; ++k) {
        const auto p = static_cast<std::size_t>((i * d1 + j) * d2 + k);
        want[p] = t.hx[p] + i * 1000003LL * 1009LL + j * 1009LL + k;
      }
  t.expect(want);
}

/// A generic function object: callable with 1, 2 or 3 indices; the index space's
/// rank picks which. Writes the linear index of the multi-index it was given.
template <class View>
struct linear_writer {
  View v;
  index_t d1 = 1, d2 = 1;
  UFUNC_HD void operator()(std::size_t i) const { v[static_cast<index_t>(i)] = static_cast<long long>(i); }
  UFUNC_HD void operator()(std::size_t i, std::size_t j) const {
    v[static_cast<index_t>(i) * d1 + static_cast<index_t>(j)] = static_cast<long long>(i) * d1 + static_cast<long long>(j);
  }
  UFUNC_HD void operator()(std::size_t i, std::size_t j, std::size_t k) const {
    const index_t p = (static_cast<index_t>(i) * d1 + static_cast<index_t>(j)) * d2 + static_cast<index_t>(k);
    v[p] = static_cast<long long>(p);
  }
};

}  // namespace

TEST_CASE("parallel_for: 1-D visits every index once and computes f(i), edge and random sizes") {
  std::mt19937_64 rng(test::fresh_seed());
  std::vector<index_t> sizes = {1, 2, 31, 32, 33, 1023, 1024, 1025, 65537, 1 << 20};
  for (int r = 0; r < 3; ++r) sizes.push_back(std::uniform_int_distribution<index_t>(1, 3'000'000)(rng));
  test::for_each_target([&](auto tg) {
    using Target = decltype(tg);
    for (index_t n : sizes) check_1d<Target>(n, test::fresh_seed());
  });
}

TEST_CASE("parallel_for: 2-D and 3-D spaces give each multi-index once, row-major") {
  std::mt19937_64 rng(test::fresh_seed());
  std::vector<std::pair<index_t, index_t>> shapes2 = {{1, 1}, {1, 1000}, {1000, 1}, {7, 13}, {257, 129}, {1000, 1000}};
  std::vector<std::array<index_t, 3>> shapes3 = {{1, 1, 1}, {1, 1, 777}, {777, 1, 1}, {3, 5, 7}, {64, 33, 17}, {2, 300, 1025}};
  std::uniform_int_distribution<index_t> d(1, 300);
  for (int r = 0; r < 3; ++r) {
    shapes2.push_back({d(rng), d(rng) * 7});
    shapes3.push_back({d(rng) / 10 + 1, d(rng) / 4 + 1, d(rng)});
  }
  test::for_each_target([&](auto tg) {
    using Target = decltype(tg);
    for (auto [r, c] : shapes2) check_2d<Target>(r, c, test::fresh_seed());
    for (auto [a, b, c] : shapes3) check_3d<Target>(a, b, c, test::fresh_seed());
  });
}

namespace {
/// Runs `fn`, which uses launch configuration `c`. A block size the kernel cannot
/// run (its registers do not fit) must be refused with value_error rather than
/// fail at launch. That happens only on the device and only for large blocks: under
/// compute-sanitizer memcheck, whose instrumentation adds registers, 1024 threads
/// may no longer fit. Anything else propagates and fails the test.
template <class Target, class Fn>
void run_or_refused(const ufunc::launch_config& c, Fn&& fn) {
  try {
    fn();
  } catch (const ufunc::value_error& e) {
    const std::string m = e.what();
    INFO(m);
    CHECK(!std::is_same_v<Target, ufunc::target::host>);
    CHECK(c.threads > 256);
    CHECK(test::contains(m, "parallel_for: launch_config asks for " + std::to_string(c.threads) +
                                " threads per block but this kernel can run at most"));
    MESSAGE("refused as the kernel cannot run blocks this large here: " << m);
  }
}
}  // namespace

TEST_CASE("parallel_for: explicit launch configurations cover the space whatever the grid") {
  // Grids far smaller than the space (every thread loops; strides below, between
  // and above the row length and the plane size exercise the index carries),
  // exactly one thread per index, and grids larger than the space.
  const std::vector<ufunc::launch_config> cfgs = {{1, 1},  {1, 5},   {2, 32},  {3, 7},   {1, 40},
                                                  {7, 13}, {5, 1024}, {1000, 64}, {91, 1}, {1, 1024}};
  test::for_each_target([&](auto tg) {
    using Target = decltype(tg);
    for (const auto& c : cfgs) {
      INFO("launch_config{" << c.blocks << ", " << c.threads << "}");
      run_or_refused<Target>(c, [&] {
        check_1d<Target>(91, test::fresh_seed(), c);
        check_1d<Target>(100'003, test::fresh_seed(), c);
        check_2d<Target>(7, 13, test::fresh_seed(), c);
        check_2d<Target>(33, 1, test::fresh_seed(), c);
        check_2d<Target>(129, 257, test::fresh_seed(), c);
        check_3d<Target>(3, 5, 7, test::fresh_seed(), c);
        check_3d<Target>(4, 1, 9, test::fresh_seed(), c);
        check_3d<Target>(17, 9, 33, test::fresh_seed(), c);
      });
    }
    // Sizes given as unsigned types convert (no narrowing error at the call).
    const std::size_t blocks = 3, threads = 96;
    check_1d<Target>(1000, test::fresh_seed(), ufunc::launch_config{blocks, threads});
  });
}

TEST_CASE("parallel_for: a generic function object; the space's rank picks the call") {
  test::for_each_target([&](auto tg) {
    using Target = decltype(tg);
    for (const shape& s : {shape{1000}, shape{37, 29}, shape{5, 11, 13}}) {
      INFO("target " << Target::name << " shape " << s.str());
      auto out = ufunc::empty<long long, Target>(shape{s.count()});
      linear_writer<ufunc::array_view<long long, Target>> w{out.view(), s.size() > 1 ? s[1] : 1,
                                                             s.size() > 2 ? s[2] : 1};
      ufunc::parallel_for<Target>(s, w);
      std::vector<long long> want(static_cast<std::size_t>(s.count()));
      for (std::size_t i = 0; i < want.size(); ++i) want[i] = static_cast<long long>(i);
      test::expect_equal(out.to_host(), want);
    }
  });
}

namespace {
// Extended (UFUNC_HD) lambdas are defined in named function templates, not in
// generic lambdas, as nvcc requires.
template <class Target>
void check_empty_spaces() {
  {
    auto flag = ufunc::zeros<int, Target>(shape{1});
    auto fv = flag.view();
    ufunc::parallel_for<Target>(0, [=] UFUNC_HD (std::size_t) { fv[0] = 1; });
    ufunc::parallel_for<Target>(std::size_t{0}, [=] UFUNC_HD (std::size_t) { fv[0] = 1; }, ufunc::launch_config{4, 64});
    ufunc::parallel_for<Target>(shape{0, 5}, [=] UFUNC_HD (std::size_t, std::size_t) { fv[0] = 1; });
    ufunc::parallel_for<Target>(shape{4, 0, 3}, [=] UFUNC_HD (std::size_t, std::size_t, std::size_t) { fv[0] = 1; });
    CHECK(flag.to_host() == std::vector<int>{0});
  }
}
}  // namespace

TEST_CASE("parallel_for: empty index spaces run nothing") {
  test::for_each_target([](auto tg) { check_empty_spaces<decltype(tg)>(); });
}

TEST_CASE("parallel_for: streams (ufunc::stream, stream_ref, cudaStream_t) in either position") {
  ufunc::stream s1, s2(ufunc::stream::non_blocking);
  check_1d<ufunc::target::device>(50'000, test::fresh_seed(), s1);
  check_1d<ufunc::target::device>(50'000, test::fresh_seed(), s2.ref());
  check_1d<ufunc::target::device>(50'000, test::fresh_seed(), ufunc::launch_config{8, 128}, s1);
  check_2d<ufunc::target::device>(100, 333, test::fresh_seed(), s2, ufunc::launch_config{3, 256});
  check_3d<ufunc::target::device>(10, 20, 30, test::fresh_seed(), ufunc::stream_ref{});
#if defined(UFUNC_BACKEND_CUDA)
  check_1d<ufunc::target::device>(50'000, test::fresh_seed(), s1.get());
#endif
  // The host target takes a stream too (and ignores it: host work is synchronous).
  check_1d<ufunc::target::host>(1000, test::fresh_seed(), s1);
}

TEST_CASE("parallel_for: work on two streams, ordered by an event") {
  // s1 writes a; s2 waits for the event recorded after it, then reads a. Without
  // the wait s2 could read a before s1 wrote it (a, b start poisoned).
  const index_t n = 1 << 22;
  ufunc::stream s1(ufunc::stream::non_blocking), s2(ufunc::stream::non_blocking);
  const auto seed = test::fresh_seed();
  const auto hx = test::random_vector<int>(static_cast<std::size_t>(n), seed, -1000, 1000);
  auto x = ufunc::to_device(hx, s1);
  auto a = ufunc::empty<int>(shape{n}, s1);
  auto b = ufunc::empty<int>(shape{n}, s1);
  auto xv = x.view();
  auto av = a.view();
  auto bv = b.view();
  for (int rep = 0; rep < 8; ++rep)  // several rounds: a heavier first stream
    ufunc::parallel_for(n, [=] UFUNC_HD (std::size_t i) { av[static_cast<index_t>(i)] = 2 * xv[static_cast<index_t>(i)] + rep; }, s1);
  ufunc::event done;
  done.record(s1);
  ufunc::stream_wait(s2, done);
  ufunc::parallel_for(n, [=] UFUNC_HD (std::size_t i) { bv[static_cast<index_t>(i)] = av[static_cast<index_t>(i)] - 1; }, s2);
  ufunc::event done2;
  done2.record(s2);
  ufunc::stream_wait(s1, done2);  // b is freed on s1 (its allocation stream): after s2's use
  std::vector<int> want(hx.size());
  for (std::size_t i = 0; i < hx.size(); ++i) want[i] = 2 * hx[i] + 7 - 1;
  INFO("seed " << seed);
  test::expect_equal(b.to_host(s2), want);
  s1.synchronize();
}

namespace {
template <class Target>
void check_parallel_for_errors() {
  {
    INFO("target " << Target::name);
    auto flag = ufunc::zeros<int, Target>(shape{1});
    auto fv = flag.view();
    auto f1 = [=] UFUNC_HD (std::size_t) { fv[0] = 1; };
    auto f2 = [=] UFUNC_HD (std::size_t, std::size_t) { fv[0] = 1; };
    auto shape_error_of = [](auto&& fn) { return test::message_of<ufunc::shape_error>(fn); };
    auto value_error_of = [](auto&& fn) { return test::message_of<ufunc::value_error>(fn); };
    std::string m;
    m = shape_error_of([&] { ufunc::parallel_for<Target>(-1, f1); });
    INFO(m);
    CHECK(m.rfind("parallel_for: negative extent -1", 0) == 0);
    m = shape_error_of([&] { ufunc::parallel_for<Target>(-5LL, f1); });
    CHECK(m.rfind("parallel_for: negative extent -5", 0) == 0);
    m = shape_error_of([&] { ufunc::parallel_for<Target>(std::numeric_limits<std::size_t>::max(), f1); });
    CHECK(m.rfind("parallel_for: extent 18446744073709551615 exceeds", 0) == 0);
    m = shape_error_of([&] { ufunc::parallel_for<Target>(shape{}, f1); });
    CHECK(m.rfind("parallel_for: the index space must have 1 to 3 dimensions, got ()", 0) == 0);
    m = shape_error_of([&] { ufunc::parallel_for<Target>(shape{2, 2, 2, 2}, f1); });
    CHECK(test::contains(m, "got (2,2,2,2)"));
    m = shape_error_of([&] { ufunc::parallel_for<Target>(shape{2, 3}, f1); });
    CHECK(m.rfind("parallel_for: the index space (2,3) has 2 dimensions but the function takes (i)", 0) == 0);
    m = shape_error_of([&] { ufunc::parallel_for<Target>(10, f2); });
    CHECK(test::contains(m, "the index space (10,) has 1 dimension but the function takes (i, j)"));
    m = shape_error_of([&] { ufunc::parallel_for<Target>(shape{4, 0, 3}, f2); });  // empty, but still the wrong rank
    CHECK(test::contains(m, "has 3 dimensions but the function takes (i, j)"));
    // shape itself refuses negative extents.
    m = shape_error_of([&] { ufunc::parallel_for<Target>(shape{3, -2}, f2); });
    CHECK(m.rfind("shape: negative dimension -2", 0) == 0);
    struct bad_cfg {
      long long blocks, threads;
      const char* part;
    };
    for (const auto& c : {bad_cfg{1, 0, "threads per block must be 1 to 1024, got 0"},
                          bad_cfg{1, 1025, "threads per block must be 1 to 1024, got 1025"},
                          bad_cfg{1, -32, "threads per block must be 1 to 1024, got -32"},
                          bad_cfg{0, 128, "blocks must be 1 to 2147483647, got 0"},
                          bad_cfg{-3, 128, "blocks must be 1 to 2147483647, got -3"},
                          bad_cfg{2147483648LL, 128, "blocks must be 1 to 2147483647, got 2147483648"}}) {
      m = value_error_of([&] { ufunc::parallel_for<Target>(100, f1, ufunc::launch_config{c.blocks, c.threads}); });
      INFO(m);
      CHECK(m.rfind(std::string("parallel_for: launch_config ") + c.part, 0) == 0);
      m = value_error_of([&] { ufunc::parallel_for<Target>(0, f1, ufunc::launch_config{c.blocks, c.threads}); });
      CHECK(test::contains(m, c.part));  // checked even when there is nothing to run
    }
    m = value_error_of([&] {
      ufunc::parallel_for<Target>(100, f1, ufunc::launch_config{std::numeric_limits<unsigned long long>::max(), 1u});
    });
    CHECK(test::contains(m, "blocks must be 1 to 2147483647, got 9223372036854775807"));
    CHECK(flag.to_host() == std::vector<int>{0});  // none of them ran
  }
}
}  // namespace

TEST_CASE("parallel_for: invalid index spaces, functions and launch configurations throw before running") {
  test::for_each_target([](auto tg) { check_parallel_for_errors<decltype(tg)>(); });
}

// ---- atomics ------------------------------------------------------------------

namespace {

template <class T>
std::vector<T> atomic_values(std::size_t n, std::mt19937_64& rng) {
  // Ranges whose sums are exact in any order (floats: small integers, |sum| < 2^24).
  std::vector<T> v(n);
  if constexpr (std::is_floating_point_v<T>) {
    std::uniform_int_distribution<int> d(std::is_same_v<T, float> ? -40 : -1'000'000, std::is_same_v<T, float> ? 40 : 1'000'000);
    for (auto& x : v) x = static_cast<T>(d(rng));
  } else if constexpr (std::is_unsigned_v<T>) {
    std::uniform_int_distribution<unsigned long long> d(0, sizeof(T) == 4 ? 4'000'000'000ull : ~0ull);
    for (auto& x : v) x = static_cast<T>(d(rng));  // sums wrap: defined for unsigned, and the same on both sides
  } else {
    std::uniform_int_distribution<long long> d(sizeof(T) == 4 ? -10'000 : -(1ll << 40), sizeof(T) == 4 ? 10'000 : (1ll << 40));
    for (auto& x : v) x = static_cast<T>(d(rng));
  }
  return v;
}

template <class T>
bool same_bits(T a, T b) {
  return std::memcmp(&a, &b, sizeof(T)) == 0;
}

/// All atomics of one type on one target, from n threads on m slots, against serial
/// references: the final values of add, sub, min, max, exch and a CAS-loop sum, the
/// old values add and sub return (tickets: a permutation), the old values min
/// returns (values the slot held), and CAS claims (exactly one winner per slot).
template <class Target, class T>
void check_atomics(std::size_t n, std::size_t m, std::uint64_t seed) {
  INFO("target " << Target::name << " type " << test::type_name<T>() << " n " << n << " slots " << m << " seed " << seed);
  std::mt19937_64 rng(seed);
  const auto hv = atomic_values<T>(n, rng);
  std::vector<int> hslot(n);
  std::uniform_int_distribution<std::size_t> ds(0, m - 1);
  for (auto& s : hslot) s = static_cast<int>(ds(rng));
  // Slots: [0, m) add, [m, 2m) sub, [2m, 3m) min, [3m, 4m) max, [4m, 5m) CAS-loop sum,
  // [5m, 6m) claims, [6m, 7m) exch; then 2 ticket counters.
  const std::size_t n_acc = 7 * m + 2;
  auto hacc = atomic_values<T>(n_acc, rng);
  const T empty = std::numeric_limits<T>::max();
  for (std::size_t s = 0; s < m; ++s) hacc[5 * m + s] = empty;
  const T t0 = static_cast<T>(1000), t1 = static_cast<T>(n + 5000);
  hacc[7 * m] = t0;
  hacc[7 * m + 1] = t1;

  auto v = ufunc::asarray<Target>(hv);
  auto sl = ufunc::asarray<Target>(hslot);
  auto acc = ufunc::asarray<Target>(hacc);
  auto old_add = ufunc::empty<T, Target>(shape{static_cast<index_t>(n)});
  auto old_sub = ufunc::empty<T, Target>(shape{static_cast<index_t>(n)});
  auto old_min = ufunc::empty<T, Target>(shape{static_cast<index_t>(n)});
  auto claim = ufunc::empty<T, Target>(shape{static_cast<index_t>(n)});
  auto exch = ufunc::empty<T, Target>(shape{static_cast<index_t>(n)});
  auto vv = v.view();
  auto sv = sl.view();
  auto a = acc.view();
  auto oa = old_add.view();
  auto os = old_sub.view();
  auto om = old_min.view();
  auto cl = claim.view();
  auto ex = exch.view();
  const index_t M = static_cast<index_t>(m);
  ufunc::parallel_for<Target>(n, [=] UFUNC_HD (std::size_t i) {
    const index_t s = sv[static_cast<index_t>(i)];
    const T x = vv[static_cast<index_t>(i)];
    ufunc::atomic_add(&a[s], x);
    ufunc::atomic_sub(&a[M + s], x);
    om[static_cast<index_t>(i)] = ufunc::atomic_min(&a[2 * M + s], x);
    ufunc::atomic_max(&a[3 * M + s], x);
    // A sum built from compare-and-swap: retry until no other thread got in between.
    T* p = &a[4 * M + s];
    T old = ufunc::atomic_load(p), seen;
    do {
      seen = old;
      old = ufunc::atomic_cas(p, seen, static_cast<T>(seen + x));
    } while (!(old == seen));
    // Claims: the first CAS on an empty slot wins; the others see the winner.
    cl[static_cast<index_t>(i)] = ufunc::atomic_cas(&a[5 * M + s], empty, static_cast<T>(i));
    ex[static_cast<index_t>(i)] = ufunc::atomic_exch(&a[6 * M + s], static_cast<T>(i));
    oa[static_cast<index_t>(i)] = ufunc::atomic_add(&a[7 * M], T(1));
    os[static_cast<index_t>(i)] = ufunc::atomic_sub(&a[7 * M + 1], T(1));
  });

  // Serial references.
  std::vector<T> want(hacc);
  for (std::size_t i = 0; i < n; ++i) {
    const std::size_t s = static_cast<std::size_t>(hslot[i]);
    const T x = hv[i];
    want[s] = static_cast<T>(want[s] + x);
    want[m + s] = static_cast<T>(want[m + s] - x);
    want[2 * m + s] = std::min(want[2 * m + s], x);
    want[3 * m + s] = std::max(want[3 * m + s], x);
    want[4 * m + s] = static_cast<T>(want[4 * m + s] + x);
  }
  want[7 * m] = static_cast<T>(t0 + static_cast<T>(n));
  want[7 * m + 1] = static_cast<T>(t1 - static_cast<T>(n));
  const auto got = acc.to_host();
  auto expect_range = [&](std::size_t from, std::size_t to, const char* what) {
    std::size_t bad = 0, first = 0;
    for (std::size_t k = from; k < to; ++k)
      if (!same_bits(got[k], want[k])) {
        if (!bad) first = k;
        ++bad;
      }
    INFO(std::string(what) << ": " << bad << " of " << (to - from) << " slots wrong; first " << first - from << " got "
              << test::printable(got[first]) << " want " << test::printable(want[first]));
    CHECK(bad == 0);
  };
  expect_range(0, m, "atomic_add");
  expect_range(m, 2 * m, "atomic_sub");
  expect_range(2 * m, 3 * m, "atomic_min");
  expect_range(3 * m, 4 * m, "atomic_max");
  expect_range(4 * m, 5 * m, "atomic_cas loop");
  expect_range(7 * m, 7 * m + 2, "ticket counters");

  // Tickets: add returned t0, t0+1, ..., each once; sub returned t1, t1-1, ...
  auto ha = old_add.to_host(), hs = old_sub.to_host();
  std::sort(ha.begin(), ha.end());
  std::sort(hs.begin(), hs.end());
  std::size_t bad_a = 0, bad_s = 0;
  for (std::size_t k = 0; k < n; ++k) {
    bad_a += !(ha[k] == static_cast<T>(t0 + static_cast<T>(k)));
    bad_s += !(hs[k] == static_cast<T>(t1 - static_cast<T>(n - 1 - k)));
  }
  INFO("atomic_add returned " << bad_a << " wrong tickets, atomic_sub " << bad_s);
  CHECK(bad_a == 0);
  CHECK(bad_s == 0);

  // atomic_min returned what the slot held: its initial value or an input of the
  // slot, never below the final minimum; and some call saw each slot's initial value.
  const auto hm = old_min.to_host();
  std::vector<std::map<double, int>> held(m);
  for (std::size_t i = 0; i < n; ++i) held[static_cast<std::size_t>(hslot[i])][test::printable(hv[i])] = 1;
  std::size_t bad_m = 0;
  std::vector<int> saw_init(m, 0);
  for (std::size_t i = 0; i < n; ++i) {
    const std::size_t s = static_cast<std::size_t>(hslot[i]);
    const bool is_init = hm[i] == hacc[2 * m + s];
    saw_init[s] |= is_init;
    bad_m += !(is_init || held[s].count(test::printable(hm[i]))) || hm[i] < want[2 * m + s];
  }
  std::size_t used_slots = 0, saw = 0;
  for (std::size_t s = 0; s < m; ++s) {
    used_slots += !held[s].empty();
    saw += !held[s].empty() && saw_init[s];
  }
  INFO("atomic_min returned " << bad_m << " impossible old values");
  CHECK(bad_m == 0);
  CHECK(saw == used_slots);

  // Claims and exchanges: per slot, the final value is a thread of that slot; the
  // claim's winner saw `empty` and every other claimant saw the winner; the
  // exchanges form one chain (each old value returned once, the final one never).
  const auto hc = claim.to_host(), he = exch.to_host();
  std::size_t bad_c = 0, bad_e = 0;
  std::vector<std::vector<std::size_t>> members(m);
  for (std::size_t i = 0; i < n; ++i) members[static_cast<std::size_t>(hslot[i])].push_back(i);
  for (std::size_t s = 0; s < m; ++s) {
    if (members[s].empty()) continue;
    const T w = got[5 * m + s];
    const double wd = test::printable(w);
    const bool in_range = !(w == empty) && wd >= 0.0 && wd < static_cast<double>(n);
    const auto wi = in_range ? static_cast<std::size_t>(w) : 0;
    const bool member = in_range && static_cast<std::size_t>(hslot[wi]) == s && static_cast<T>(wi) == w;
    bad_c += !member;
    std::map<double, int> returned;
    for (std::size_t i : members[s]) {
      bad_c += member && !(i == wi ? hc[i] == empty : hc[i] == w);
      returned[test::printable(he[i])] += 1;
    }
    // exch: returned values = {initial} U {members} minus the final value, each once.
    std::map<double, int> expected;
    expected[test::printable(hacc[6 * m + s])] += 1;
    for (std::size_t i : members[s]) expected[test::printable(static_cast<T>(i))] += 1;
    expected[test::printable(got[6 * m + s])] -= 1;
    for (auto it = expected.begin(); it != expected.end();)
      it = it->second == 0 ? expected.erase(it) : std::next(it);
    bad_e += returned != expected;
  }
  INFO("claims wrong in " << bad_c << " slots, exchange chains broken in " << bad_e);
  CHECK(bad_c == 0);
  CHECK(bad_e == 0);
}

}  // namespace

TEST_CASE("atomics: add, sub, min, max, exch, cas under contention match serial references") {
  test::for_each_target([&](auto tg) {
    using Target = decltype(tg);
    // One slot (every thread on one address), a few, and many.
    for (std::size_t m : {1u, 7u, 4096u})
      test::for_each_type<int, unsigned, long long, unsigned long long, long, float, double>(
          [&](auto t) { check_atomics<Target, decltype(t)>(200'000, m, test::fresh_seed()); });
  });
}

namespace {
template <class Target>
void check_float_min_max() {
  {
    INFO("target " << Target::name);
    const float inf = std::numeric_limits<float>::infinity(), nan = std::numeric_limits<float>::quiet_NaN();
    auto a = ufunc::asarray<Target>(std::vector<float>{inf, -inf, nan, nan});
    auto av = a.view();
    const std::vector<float> hx = {-3.5f, 2.0f, -7.25f, 1e30f, -1e30f};
    auto x = ufunc::asarray<Target>(hx);
    auto xv = x.view();
    ufunc::parallel_for<Target>(x.size(), [=] UFUNC_HD (std::size_t i) {
      ufunc::atomic_min(&av[0], xv[static_cast<index_t>(i)]);
      ufunc::atomic_max(&av[1], xv[static_cast<index_t>(i)]);
      ufunc::atomic_min(&av[2], xv[static_cast<index_t>(i)]);  // a NaN in memory stays
      ufunc::atomic_max(&av[3], xv[static_cast<index_t>(i)]);
    });
    const auto h = a.to_host();
    CHECK(h[0] == -1e30f);
    CHECK(h[1] == 1e30f);
    CHECK(std::isnan(h[2]));
    CHECK(std::isnan(h[3]));
  }
}
}  // namespace

TEST_CASE("atomics: min and max on floats, with negative values, infinities and a NaN in memory") {
  test::for_each_target([](auto tg) { check_float_min_max<decltype(tg)>(); });
}

// ---- streams, events, timers ----------------------------------------------------

TEST_CASE("stream: owns its handle, moves, converts to stream_ref, carries its flags") {
  ufunc::stream a;
  ufunc::stream b(ufunc::stream::non_blocking);
  CHECK(a.get_flags() == ufunc::stream::blocking);
  CHECK(b.get_flags() == ufunc::stream::non_blocking);
  const ufunc::stream_ref r = a;
  CHECK(r.get() == a.get());
  CHECK(a.ref().get() == a.get());
#if defined(UFUNC_BACKEND_CUDA)
  CHECK(a.get() != nullptr);
  CHECK(a.get() != b.get());
  unsigned fa = 99, fb = 99;
  REQUIRE(cudaStreamGetFlags(a.get(), &fa) == cudaSuccess);
  REQUIRE(cudaStreamGetFlags(b.get(), &fb) == cudaSuccess);
  CHECK(fa == cudaStreamDefault);
  CHECK(fb == cudaStreamNonBlocking);
#endif
  auto h = b.get();
  ufunc::stream c(std::move(b));
  CHECK(c.get() == h);
  CHECK(c.get_flags() == ufunc::stream::non_blocking);
  CHECK(b.get() == nullptr);  // NOLINT(bugprone-use-after-move): moved-from is the default stream
  a = std::move(c);  // a's old stream is destroyed, c's moves in
  CHECK(a.get() == h);
  CHECK(c.get() == nullptr);  // NOLINT(bugprone-use-after-move)
  static_assert(!std::is_copy_constructible_v<ufunc::stream> && !std::is_copy_assignable_v<ufunc::stream>);
  static_assert(std::is_nothrow_move_constructible_v<ufunc::stream>);

  // Arrays, ufuncs and parallel_for take it; ready() turns true once it drained.
  const auto seed = test::fresh_seed();
  const auto hx = test::random_vector<float>(100'000, seed);
  auto x = ufunc::to_device(hx, a);
  auto twice = ufunc::vectorize([] UFUNC_HD (float v) { return 2.0f * v; });
  auto y = twice(x, a);
  CHECK(y.stream().get() == a.get());
  auto yv = y.view();
  ufunc::parallel_for(y.size(), [=] UFUNC_HD (std::size_t i) { yv[static_cast<index_t>(i)] += 1.0f; }, a);
  a.synchronize();
  CHECK(a.ready());
  std::vector<float> want(hx.size());
  for (std::size_t i = 0; i < hx.size(); ++i) want[i] = 2.0f * hx[i] + 1.0f;
  INFO("seed " << seed);
  test::expect_equal(y.to_host(), want);
}

namespace {

/// Busy-waits about `ms` milliseconds of the executing processor's own clock: the
/// device's global timer in a kernel, the host clock on the host.
struct spin_for {
  long long ns;
  UFUNC_HD void operator()(std::size_t) const {
#if defined(__CUDA_ARCH__)
    unsigned long long t0, t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
    do {
      asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    } while (t - t0 < static_cast<unsigned long long>(ns));
#else
    const auto t0 = std::chrono::steady_clock::now();
    while (std::chrono::steady_clock::now() - t0 < std::chrono::nanoseconds(ns)) {
    }
#endif
  }
};

template <class Target>
void check_timer_measures_the_work() {
  INFO("target " << Target::name);
  ufunc::stream s;
  ufunc::basic_timer<Target> t;
  t.start(s);
  ufunc::parallel_for<Target>(1, spin_for{20'000'000}, s);  // 20 ms in one thread
  t.stop(s);
  const double ms = t.elapsed_ms();  // waits for the stop event
  INFO("timer measured " << ms << " ms for a 20 ms spin");
  CHECK(ms >= 19.5);
  CHECK(ms < 5000.0);
  // The same with bare events, and reusing the timer for an empty interval.
  ufunc::basic_event<Target> e0, e1;
  e0.record(s);
  ufunc::parallel_for<Target>(1, spin_for{5'000'000}, s);
  e1.record(s);
  e1.synchronize();
  CHECK(e1.ready());
  CHECK(ufunc::elapsed_ms(e0, e1) >= 4.8);
  t.start(s);
  t.stop(s);
  const double empty_ms = t.elapsed_ms();
  CHECK(empty_ms >= 0.0);
  CHECK(empty_ms < ms);
}

}  // namespace

TEST_CASE("timer and events measure the work on the stream, not the launch") {
  test::for_each_target([](auto tg) { check_timer_measures_the_work<decltype(tg)>(); });
}

TEST_CASE("timer and events: misuse throws value_error") {
  auto value_error_of = [](auto&& fn) { return test::message_of<ufunc::value_error>(fn); };
  ufunc::timer t;
  CHECK(test::contains(value_error_of([&] { (void)t.elapsed_ms(); }), "the timer was never started"));
  CHECK(test::contains(value_error_of([&] { t.stop(); }), "ufunc::timer::stop: the timer was not started"));
  t.start();
  CHECK(test::contains(value_error_of([&] { (void)t.elapsed_ms(); }), "the timer is still running"));
  t.stop();
  CHECK(t.elapsed_ms() >= 0.0);

  ufunc::event a, b, c(ufunc::event_flags::disable_timing);
  CHECK(!a.recorded());
  CHECK(test::contains(value_error_of([&] { (void)ufunc::elapsed_ms(a, b); }), "the start event was never recorded"));
  a.record();
  CHECK(test::contains(value_error_of([&] { (void)ufunc::elapsed_ms(a, b); }), "the stop event was never recorded"));
  c.record();
  CHECK(test::contains(value_error_of([&] { (void)ufunc::elapsed_ms(a, c); }), "event_flags::disable_timing"));
  b.record();
  CHECK(ufunc::elapsed_ms(a, b) >= 0.0);
  ufunc::host_event h0, h1;
  CHECK(test::contains(value_error_of([&] { (void)ufunc::elapsed_ms(h0, h1); }), "never recorded"));
#if defined(UFUNC_BACKEND_CUDA)
  ufunc::event moved(std::move(a));
  CHECK(moved.recorded());
  CHECK(a.get() == nullptr);  // NOLINT(bugprone-use-after-move)
  CHECK(test::contains(value_error_of([&] { a.record(); }), "the event was moved from"));
#endif
}
