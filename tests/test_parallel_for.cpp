// ufunc::parallel_for (parallel_for.hpp) over 1-, 2- and 3-D index spaces:
// automatic and explicit launch configurations, generic function objects, empty
// spaces, streams (and two streams ordered by an event) and the errors. Every
// check runs on the host target, and on the CUDA target too in a CUDA build.
#include "test_support.hpp"

#include <array>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
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
