// Concurrent use from host threads (issue 21, item 4): eight std::threads each
// drive their own ufunc::stream and the default stream through mixed calls
// (vectorize with new results, one and two outputs, four inputs staged in
// shared memory; whole reductions to host values; axis reductions; matmul;
// transpose; parallel_for with atomics into a counter all threads share and a
// histogram of their own), every result checked against a serial host loop.
// The library's caches (device attributes, launch and occupancy caches, the
// shared-memory opt-in, per-thread reduction scratch and pinned result slots,
// the memory pool) are all touched from every thread at once; on the host
// backend CI runs this under ThreadSanitizer, on the GPU under compute-sanitizer.
//
// UFUNC_STRESS_ITERS sets the total number of iterations (all threads together;
// default 4000). Data are small integers held in floats, so every sum and product
// below is exact in any order and the checks are equalities.
#include "test_support.hpp"

#include <cstdlib>
#include <exception>
#include <random>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

using ufunc::index_t;

namespace {

constexpr int stress_threads = 8;

std::vector<float> small_ints(std::size_t n, std::mt19937_64& rng, int lo, int hi) {
  std::uniform_int_distribution<int> d(lo, hi);
  std::vector<float> v(n);
  for (auto& x : v) x = static_cast<float>(d(rng));
  return v;
}

/// What one thread found wrong (kept to the first few), for the main thread to report.
struct findings {
  std::vector<std::string> bad;
  long checks = 0;
  void expect(bool ok, const std::string& what) {
    ++checks;
    if (!ok && bad.size() < 8) bad.push_back(what);
  }
  template <class T>
  void expect_equal(const std::vector<T>& got, const std::vector<T>& want, const std::string& what) {
    std::size_t first = got.size();
    if (got.size() == want.size())
      for (std::size_t i = 0; i < got.size(); ++i)
        if (!(got[i] == want[i])) {
          first = i;
          break;
        }
    std::ostringstream m;
    m << what;
    if (got.size() != want.size())
      m << ": size " << got.size() << ", want " << want.size();
    else if (first < got.size())
      m << ": element " << first << " is " << got[first] << ", want " << want[first];
    expect(got.size() == want.size() && first == got.size(), m.str());
  }
};

/// One iteration on stream `s`: every kind of call, each checked. Returns the
/// count it added to the shared counter.
index_t one_iteration(std::mt19937_64& rng, ufunc::stream_ref s, ufunc::array_view<int> shared_counter, findings& f,
                   const std::string& where) {
  // Mostly small sizes (many calls, every cache hit often); now and then one
  // above the host backend's 16384-element chunk, so OpenMP regions (host) and
  // multi-block grids with partials (CUDA) run concurrently too.
  const bool big = rng() % 8 == 0;
  const auto n = static_cast<index_t>(big ? 20000 + rng() % 30000 : 1 + rng() % 3000);
  const auto hx = small_ints(static_cast<std::size_t>(n), rng, -8, 8);
  const auto hz = small_ints(static_cast<std::size_t>(n), rng, -8, 8);
  auto x = ufunc::asarray<ufunc::target::device>(hx, s);
  auto z = ufunc::asarray<ufunc::target::device>(hz, s);

  // vectorize, one new result and two.
  auto fma3 = ufunc::vectorize([] UFUNC_HD (float a, float b, float c) { return a * b + c; }, "fma3");
  auto sum_diff = ufunc::vectorize([] UFUNC_HD (float a, float b) { return cuda::std::make_tuple(a + b, a - b); },
                                   "sum_diff");
  auto y = fma3(x, z, 3.0f, s);
  auto [p, m] = sum_diff(x, z, s);
  std::vector<float> want_y(hx.size()), want_p(hx.size()), want_m(hx.size());
  for (std::size_t i = 0; i < hx.size(); ++i) {
    want_y[i] = hx[i] * hz[i] + 3.0f;
    want_p[i] = hx[i] + hz[i];
    want_m[i] = hx[i] - hz[i];
  }
  f.expect_equal(y.to_host(), want_y, where + " vectorize");
  f.expect_equal(p.to_host(), want_p, where + " two-output vectorize, first");
  f.expect_equal(m.to_host(), want_m, where + " two-output vectorize, second");

  // Whole reductions to host values (the per-thread scratch and pinned slot on CUDA).
  float want_sum = 0, want_max = hx[0];
  index_t want_arg = 0;
  for (std::size_t i = 0; i < hx.size(); ++i) {
    want_sum += hx[i];
    if (hx[i] > want_max) want_max = hx[i], want_arg = static_cast<index_t>(i);
  }
  const float got_sum = ufunc::sum(x, s), got_max = ufunc::max(x, s);
  const index_t got_arg = ufunc::argmax(x, s);
  f.expect(got_sum == want_sum, where + " sum: " + std::to_string(got_sum) + ", want " + std::to_string(want_sum));
  f.expect(got_max == want_max, where + " max: " + std::to_string(got_max) + ", want " + std::to_string(want_max));
  f.expect(got_arg == want_arg, where + " argmax: " + std::to_string(got_arg) + ", want " + std::to_string(want_arg));
  // ... and of a strided view (the row kernels' split path on CUDA).
  float want_even = 0;
  for (std::size_t i = 0; i < hx.size(); i += 2) want_even += hx[i];
  const float got_even = ufunc::sum(x.view().sliced(0, 0, n, 2), s);
  f.expect(got_even == want_even, where + " sum of x[::2]: " + std::to_string(got_even));

  // Axis reductions of a (rows, cols) matrix: over columns and over rows.
  const auto rows = static_cast<index_t>(1 + rng() % 64), cols = static_cast<index_t>(1 + rng() % (big ? 600 : 80));
  const auto ha = small_ints(static_cast<std::size_t>(rows * cols), rng, -4, 4);
  auto a = ufunc::asarray<ufunc::target::device>(ha, ufunc::shape{rows, cols}, s);
  std::vector<float> want_r0(static_cast<std::size_t>(cols), 0.0f), want_r1(static_cast<std::size_t>(rows), 0.0f);
  for (index_t i = 0; i < rows; ++i)
    for (index_t j = 0; j < cols; ++j) {
      want_r0[static_cast<std::size_t>(j)] += ha[static_cast<std::size_t>(i * cols + j)];
      want_r1[static_cast<std::size_t>(i)] += ha[static_cast<std::size_t>(i * cols + j)];
    }
  f.expect_equal(ufunc::sum(a, ufunc::axis(0), s).to_host(), want_r0, where + " sum over axis 0");
  f.expect_equal(ufunc::sum(a, ufunc::axis(1), s).to_host(), want_r1, where + " sum over axis 1");

  // Transpose, and matmul (a @ b with b (cols, k), and a^T @ a through a view).
  std::vector<float> want_t(ha.size());
  for (index_t i = 0; i < rows; ++i)
    for (index_t j = 0; j < cols; ++j)
      want_t[static_cast<std::size_t>(j * rows + i)] = ha[static_cast<std::size_t>(i * cols + j)];
  f.expect_equal(ufunc::transpose(a, s).to_host(), want_t, where + " transpose");
  const auto k = static_cast<index_t>(1 + rng() % 40);
  const auto hb = small_ints(static_cast<std::size_t>(cols * k), rng, -4, 4);
  auto b = ufunc::asarray<ufunc::target::device>(hb, ufunc::shape{cols, k}, s);
  std::vector<float> want_c(static_cast<std::size_t>(rows * k), 0.0f);
  for (index_t i = 0; i < rows; ++i)
    for (index_t q = 0; q < cols; ++q)
      for (index_t j = 0; j < k; ++j)
        want_c[static_cast<std::size_t>(i * k + j)] +=
            ha[static_cast<std::size_t>(i * cols + q)] * hb[static_cast<std::size_t>(q * k + j)];
  f.expect_equal(ufunc::matmul(a, b, s).to_host(), want_c, where + " matmul");
  if (cols <= 80) {  // a^T @ a: the transposed operand goes through a temporary copy
    std::vector<float> want_g(static_cast<std::size_t>(cols * cols), 0.0f);
    for (index_t i = 0; i < cols; ++i)
      for (index_t j = 0; j < cols; ++j)
        for (index_t q = 0; q < rows; ++q)
          want_g[static_cast<std::size_t>(i * cols + j)] +=
              ha[static_cast<std::size_t>(q * cols + i)] * ha[static_cast<std::size_t>(q * cols + j)];
    f.expect_equal(ufunc::matmul(a.view().transposed(), a, s).to_host(), want_g, where + " matmul a^T a");
  }

  // Four inputs, three or four of them transposed views (>= 32 x 32): on CUDA the
  // tiles kernel stages each in shared memory, 49920 or 66560 bytes, past the
  // 48 KiB default, so the kernel's opt-in (one setting per kernel, shared by all
  // threads) is raised from several threads with different sizes at once.
  const auto r2 = static_cast<index_t>(32 + rng() % 40), c2 = static_cast<index_t>(32 + rng() % 40);
  const auto hs = small_ints(static_cast<std::size_t>(r2 * c2), rng, -4, 4);
  const auto hq = small_ints(static_cast<std::size_t>(r2 * c2), rng, -4, 4);
  auto sqm = ufunc::asarray<ufunc::target::device>(hs, ufunc::shape{r2, c2}, s);
  auto q = ufunc::asarray<ufunc::target::device>(hq, ufunc::shape{c2, r2}, s);
  auto lin4 = ufunc::vectorize([] UFUNC_HD (float a, float b, float c, float d) { return a + 2 * b + 3 * c + 4 * d; },
                               "lin4");
  const ufunc::array_view<const float> st = sqm.view().transposed();
  const bool four = rng() % 2 == 0;
  const ufunc::array_view<const float> last = four ? st : q.view();
  std::vector<float> want_l(hs.size());
  for (index_t i = 0; i < c2; ++i)
    for (index_t j = 0; j < r2; ++j) {
      const float t = hs[static_cast<std::size_t>(j * c2 + i)];
      const float d = four ? t : hq[static_cast<std::size_t>(i * r2 + j)];
      want_l[static_cast<std::size_t>(i * r2 + j)] = t + 2 * t + 3 * t + 4 * d;
    }
  f.expect_equal(lin4(st, st, st, last, s).to_host(), want_l,
                 where + (four ? " four transposed inputs" : " three transposed inputs"));

  // parallel_for with atomics: a histogram of x of this thread's own, and one
  // count in a counter every thread adds to at once.
  constexpr index_t nbins = 17;
  auto hist = ufunc::zeros<int, ufunc::target::device>(ufunc::shape{nbins}, s);
  auto hv = hist.view();
  auto xv = x.view();
  auto cnt = shared_counter;
  ufunc::parallel_for(
      static_cast<std::size_t>(n),
      [=] UFUNC_HD (std::size_t i) {
        const int bin = (static_cast<int>(xv[static_cast<index_t>(i)]) + 8) % nbins;
        ufunc::atomic_add(&hv[bin], 1);
        ufunc::atomic_add(&cnt[0], 1);
      },
      s);
  std::vector<int> want_h(static_cast<std::size_t>(nbins), 0);
  for (float v : hx) ++want_h[static_cast<std::size_t>((static_cast<int>(v) + 8) % nbins)];
  f.expect_equal(hist.to_host(), want_h, where + " parallel_for histogram");
  return n;
}

}  // namespace

TEST_CASE("concurrency: 8 host threads, each on its own stream and the default stream, mixed calls") {
  const long total = test::stress_iterations();
  const long per_thread = (total + stress_threads - 1) / stress_threads;
  // Seeds drawn here, on one thread (test::fresh_seed is not thread-safe).
  std::vector<std::uint64_t> seeds;
  for (int t = 0; t < stress_threads; ++t) seeds.push_back(test::fresh_seed());
  auto counter = ufunc::zeros<int, ufunc::target::device>(ufunc::shape{1});
  ufunc::synchronize();
  long long want_count = 0;
  std::vector<long long> counted(stress_threads, 0);
  std::vector<findings> found(stress_threads);
  std::vector<std::exception_ptr> errors(stress_threads);
  std::vector<std::thread> threads;
  for (int t = 0; t < stress_threads; ++t)
    threads.emplace_back([&, t] {
      try {
        // Odd threads' streams do not synchronise with the default stream.
        ufunc::stream own(t % 2 ? ufunc::stream::non_blocking : ufunc::stream::blocking);
        std::mt19937_64 rng(seeds[static_cast<std::size_t>(t)]);
        for (long i = 0; i < per_thread; ++i) {
          const bool on_own = i % 3 != 2;  // two of three on the thread's stream, the rest on the default one
          const ufunc::stream_ref s = on_own ? own.ref() : ufunc::stream_ref{};
          counted[static_cast<std::size_t>(t)] +=
              one_iteration(rng, s, counter.view(), found[static_cast<std::size_t>(t)],
                            "thread " + std::to_string(t) + " iteration " + std::to_string(i) +
                                (on_own ? " (own stream)" : " (default stream)"));
        }
        own.synchronize();
      } catch (...) {
        errors[static_cast<std::size_t>(t)] = std::current_exception();
      }
    });
  for (auto& th : threads) th.join();
  ufunc::synchronize();
  long checks = 0;
  for (int t = 0; t < stress_threads; ++t) {
    INFO("thread " << t << " seed " << seeds[static_cast<std::size_t>(t)]);
    if (errors[static_cast<std::size_t>(t)]) {
      try {
        std::rethrow_exception(errors[static_cast<std::size_t>(t)]);
      } catch (const std::exception& e) {
        FAIL_CHECK("thread " << t << " threw: " << e.what());
      }
    }
    for (const auto& b : found[static_cast<std::size_t>(t)].bad) FAIL_CHECK(b);
    checks += found[static_cast<std::size_t>(t)].checks;
    want_count += counted[static_cast<std::size_t>(t)];
  }
  MESSAGE(stress_threads << " threads x " << per_thread << " iterations, " << checks << " checks");
  CHECK(checks > 0);
  // Every thread's atomic_adds into the one shared counter arrived.
  CHECK(counter.to_host()[0] == want_count);
}
