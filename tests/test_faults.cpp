// Out-of-memory in the middle of a call (issue 21, item 5). The test-only
// allocation limit of detail/memory.hpp (compiled in by UFUNC_TESTING) fails the
// k-th allocation from a chosen point on; for each call below, which makes n
// allocations when it succeeds, every k in 1..n is tried: the call must throw
// ufunc::out_of_memory, leave its `out` as it was, free what it took (the count
// of live allocations returns to its value before the call), and the same call
// without the limit must then succeed with the right result. On the CUDA backend
// the same cases run on the device target (split-k workspaces, reduction
// partials, CUB temporaries) and on the host target.
#include "test_support.hpp"

#include <exception>
#include <functional>
#include <random>
#include <string>
#include <thread>
#include <vector>

using ufunc::index_t;
namespace alloc = ufunc::detail::testing;

namespace {

std::vector<float> small_ints(std::size_t n, std::uint64_t seed, int lo = -4, int hi = 4) {
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<int> d(lo, hi);
  std::vector<float> v(n);
  for (auto& x : v) x = static_cast<float>(d(rng));
  return v;
}

template <class T>
std::vector<double> doubles(const std::vector<T>& v) {
  return std::vector<double>(v.begin(), v.end());
}

/// One call under test. `run` performs it and returns its result on the host
/// (the returned array(s), or the whole of the array `out` views, flattened);
/// `out_now` returns the current contents of that array (empty for calls without
/// out); `reset_out` puts the prior contents back without allocating.
struct fault_case {
  std::string name;
  std::function<std::vector<double>()> run;
  std::vector<double> want;
  std::function<std::vector<double>()> out_now = [] { return std::vector<double>{}; };
  std::function<void()> reset_out = [] {};
};

/// Tries every fault point of `c`; returns how many there were.
long every_fault_point(const fault_case& c) {
  INFO("call: " << c.name);
  // A first run warms what the library caches (CUDA: the per-thread scratch
  // block, pinned slot and pool), so the counted run allocates only what the
  // call itself takes and gives back.
  c.reset_out();
  (void)c.run();
  c.reset_out();
  const std::vector<double> prior = c.out_now();
  const long long live0 = alloc::live_allocations();
  const long long a0 = alloc::allocation_attempts();
  const std::vector<double> got = c.run();
  const long long n = alloc::allocation_attempts() - a0;
  CHECK(got == c.want);
  CHECK(alloc::live_allocations() == live0);
  for (long long k = 1; k <= n; ++k) {
    INFO("allocation " << k << " of " << n << " refused");
    c.reset_out();
    REQUIRE(c.out_now() == prior);
    const long long live = alloc::live_allocations(), a = alloc::allocation_attempts();
    bool oom = false;
    std::string other;
    alloc::set_allocation_limit(k);
    try {
      (void)c.run();
    } catch (const ufunc::out_of_memory&) {
      oom = true;
    } catch (const std::exception& e) {
      other = e.what();
    }
    alloc::clear_allocation_limit();
    INFO("other exception: " << other);
    CHECK(oom);
    CHECK(alloc::allocation_attempts() - a == k);  // it failed at the k-th, and asked for no more
    CHECK(alloc::live_allocations() == live);      // everything it took is freed
    CHECK(c.out_now() == prior);                   // out untouched
  }
  // Still usable: the same call, without the limit, gives the right result.
  c.reset_out();
  CHECK(c.run() == c.want);
  CHECK(alloc::live_allocations() == live0);
  return n;
}

/// An array of `Tg` whose contents `reset()` restores (with a ufunc call into it,
/// which allocates nothing) and `now()` reads.
template <class T, class Tg>
struct restorable {
  ufunc::array<T, Tg> a, prior;
  restorable(const std::vector<T>& h, const ufunc::shape& s)
      : a(ufunc::asarray<Tg>(h, s)), prior(ufunc::asarray<Tg>(h, s)) {}
  void reset() {
    auto copy = ufunc::vectorize<Tg>([] UFUNC_HD (T v) { return v; }, "copy");
    copy(prior, ufunc::out(a));
  }
  std::vector<double> now() const { return doubles(a.to_host()); }
};

template <class Tg>
std::vector<fault_case> linalg_cases(std::uint64_t seed) {
  std::vector<fault_case> cases;
  // a (m,k) as the transpose of a (k,m) array, b (k,n) as every other column
  // of a (k,2n) array, into every other column of a (m,2n) out: three
  // temporaries (a, b and c through contiguous copies), and on CUDA the split-k
  // workspace of a long k.
  const index_t m = 37, k = 3000, n = 29;
  const auto ha = small_ints(static_cast<std::size_t>(k * m), seed), hb = small_ints(static_cast<std::size_t>(k * 2 * n), seed + 1);
  const auto ho = small_ints(static_cast<std::size_t>(m * 2 * n), seed + 2, 100, 200);
  auto at = std::make_shared<ufunc::array<float, Tg>>(ufunc::asarray<Tg>(ha, ufunc::shape{k, m}));
  auto b2 = std::make_shared<ufunc::array<float, Tg>>(ufunc::asarray<Tg>(hb, ufunc::shape{k, 2 * n}));
  auto o = std::make_shared<restorable<float, Tg>>(ho, ufunc::shape{m, 2 * n});
  std::vector<double> prod(static_cast<std::size_t>(m * n), 0.0);
  for (index_t i = 0; i < m; ++i)
    for (index_t q = 0; q < k; ++q)
      for (index_t j = 0; j < n; ++j)
        prod[static_cast<std::size_t>(i * n + j)] +=
            double(ha[static_cast<std::size_t>(q * m + i)]) * hb[static_cast<std::size_t>(q * 2 * n + 2 * j)];
  std::vector<double> want_out = doubles(ho);
  for (index_t i = 0; i < m; ++i)
    for (index_t j = 0; j < n; ++j) want_out[static_cast<std::size_t>(i * 2 * n + 2 * j)] = prod[static_cast<std::size_t>(i * n + j)];
  fault_case c;
  c.name = std::string("matmul(a^T, b[:, ::2], out=c[:, ::2]) on ") + Tg::name;
  c.run = [=] {
    ufunc::matmul(at->view().transposed(), b2->view().sliced(1, 0, 2 * n, 2),
                  ufunc::out(o->a.view().sliced(1, 0, 2 * n, 2)));
    return o->now();
  };
  c.want = want_out;
  c.out_now = [=] { return o->now(); };
  c.reset_out = [=] { o->reset(); };
  cases.push_back(c);

  // A new result from contiguous operands (the result, and on CUDA the split-k workspace).
  const auto hc = small_ints(static_cast<std::size_t>(m * k), seed + 3);
  auto a = std::make_shared<ufunc::array<float, Tg>>(ufunc::asarray<Tg>(hc, ufunc::shape{m, k}));
  auto b = std::make_shared<ufunc::array<float, Tg>>(ufunc::asarray<Tg>(small_ints(static_cast<std::size_t>(k * n), seed + 4), ufunc::shape{k, n}));
  const auto hbb = b->to_host();
  std::vector<double> want_ab(static_cast<std::size_t>(m * n), 0.0);
  for (index_t i = 0; i < m; ++i)
    for (index_t q = 0; q < k; ++q)
      for (index_t j = 0; j < n; ++j)
        want_ab[static_cast<std::size_t>(i * n + j)] +=
            double(hc[static_cast<std::size_t>(i * k + q)]) * hbb[static_cast<std::size_t>(q * n + j)];
  fault_case d;
  d.name = std::string("matmul(a, b) -> new array on ") + Tg::name;
  d.run = [=] { return doubles(ufunc::matmul(*a, *b).to_host()); };
  d.want = want_ab;
  cases.push_back(d);

  // Transpose into a new array.
  fault_case t;
  t.name = std::string("transpose(a) -> new array on ") + Tg::name;
  t.run = [=] { return doubles(ufunc::transpose(*at).to_host()); };
  std::vector<double> want_t(ha.size());
  for (index_t q = 0; q < k; ++q)
    for (index_t i = 0; i < m; ++i) want_t[static_cast<std::size_t>(i * k + q)] = ha[static_cast<std::size_t>(q * m + i)];
  t.want = want_t;
  cases.push_back(t);
  return cases;
}

template <class Tg>
std::vector<fault_case> reduction_cases(std::uint64_t seed) {
  std::vector<fault_case> cases;
  // A long vector and a (rows, cols) matrix with long rows, and one with long
  // columns: whole reductions and axis reductions split into chunks whose
  // partials need temporaries.
  const index_t n = 300'000, rows = 3, cols = 70'000;
  const auto hx = small_ints(static_cast<std::size_t>(n), seed);
  const auto hm = small_ints(static_cast<std::size_t>(rows * cols), seed + 1);
  auto x = std::make_shared<ufunc::array<float, Tg>>(ufunc::asarray<Tg>(hx));
  auto mat = std::make_shared<ufunc::array<float, Tg>>(ufunc::asarray<Tg>(hm, ufunc::shape{rows, cols}));
  auto tall = std::make_shared<ufunc::array<float, Tg>>(ufunc::asarray<Tg>(hm, ufunc::shape{cols, rows}));
  double sx = 0;
  for (float v : hx) sx += v;
  std::vector<double> row_sums(static_cast<std::size_t>(rows), 0.0), col_sums(static_cast<std::size_t>(rows), 0.0);
  for (index_t i = 0; i < rows; ++i)
    for (index_t j = 0; j < cols; ++j) row_sums[static_cast<std::size_t>(i)] += hm[static_cast<std::size_t>(i * cols + j)];
  for (index_t i = 0; i < cols; ++i)
    for (index_t j = 0; j < rows; ++j) col_sums[static_cast<std::size_t>(j)] += hm[static_cast<std::size_t>(i * rows + j)];

  {
    fault_case c;
    c.name = std::string("sum(x) -> host value on ") + Tg::name;
    c.run = [=] { return std::vector<double>{double(ufunc::sum(*x))}; };
    c.want = {sx};
    cases.push_back(c);
  }
  {
    auto o = std::make_shared<restorable<float, Tg>>(std::vector<float>{-1.0f}, ufunc::shape{1});
    fault_case c;
    c.name = std::string("sum(x, out=one element) on ") + Tg::name;
    c.run = [=] {
      ufunc::sum(*x, ufunc::out(o->a));
      return o->now();
    };
    c.want = {sx};
    c.out_now = [=] { return o->now(); };
    c.reset_out = [=] { o->reset(); };
    cases.push_back(c);
  }
  {
    // Every other element into a one-element double out: a float temporary for
    // the result, then the partials of the chunks of the whole reduction.
    auto o = std::make_shared<restorable<double, Tg>>(std::vector<double>{-1.0}, ufunc::shape{1});
    double se = 0;
    for (std::size_t i = 0; i < hx.size(); i += 2) se += hx[i];
    fault_case c;
    c.name = std::string("sum(x[::2], out=one double) on ") + Tg::name;
    c.run = [=] {
      ufunc::sum(x->view().sliced(0, 0, n, 2), ufunc::out(o->a));
      return o->now();
    };
    c.want = {se};
    c.out_now = [=] { return o->now(); };
    c.reset_out = [=] { o->reset(); };
    cases.push_back(c);
  }
  {
    // A double out for a float result: through a float temporary, then converted.
    auto o = std::make_shared<restorable<double, Tg>>(std::vector<double>{-1.0, -2.0, -3.0}, ufunc::shape{rows});
    fault_case c;
    c.name = std::string("sum(m, axis=1, out=double) on ") + Tg::name;
    c.run = [=] {
      ufunc::sum(*mat, ufunc::axis(1), ufunc::out(o->a));
      return o->now();
    };
    c.want = row_sums;
    c.out_now = [=] { return o->now(); };
    c.reset_out = [=] { o->reset(); };
    cases.push_back(c);
  }
  {
    fault_case c;
    c.name = std::string("sum(tall, axis=0, keepdims) -> new array on ") + Tg::name;
    c.run = [=] { return doubles(ufunc::sum(*tall, ufunc::axis(0), ufunc::keepdims).to_host()); };
    c.want = col_sums;
    cases.push_back(c);
  }
  {
    // Over the rows of a wide matrix, straight into a float out: the outputs
    // advance together in blocks of 256 on the host (each thread's partial levels
    // allocated before any output is written), column kernels on CUDA.
    const index_t wr = 60, wc = 3000;
    const auto hw = small_ints(static_cast<std::size_t>(wr * wc), seed + 2);
    auto wide = std::make_shared<ufunc::array<float, Tg>>(ufunc::asarray<Tg>(hw, ufunc::shape{wr, wc}));
    auto o = std::make_shared<restorable<float, Tg>>(small_ints(static_cast<std::size_t>(wc), seed + 3, 100, 200),
                                                     ufunc::shape{wc});
    std::vector<double> want(static_cast<std::size_t>(wc), 0.0);
    for (index_t i = 0; i < wr; ++i)
      for (index_t j = 0; j < wc; ++j) want[static_cast<std::size_t>(j)] += hw[static_cast<std::size_t>(i * wc + j)];
    fault_case c;
    c.name = std::string("sum(wide, axis=0, out=o) on ") + Tg::name;
    c.run = [=] {
      ufunc::sum(*wide, ufunc::axis(0), ufunc::out(o->a));
      return o->now();
    };
    c.want = want;
    c.out_now = [=] { return o->now(); };
    c.reset_out = [=] { o->reset(); };
    cases.push_back(c);
  }
  {
    // A reduction of an expression with a temporary leaf: sq(m) is made first.
    auto sq = ufunc::vectorize<Tg>([] UFUNC_HD (float v) { return v * v; }, "sq");
    std::vector<double> want(static_cast<std::size_t>(rows), 0.0);
    for (index_t i = 0; i < rows; ++i)
      for (index_t j = 0; j < cols; ++j) {
        const double v = hm[static_cast<std::size_t>(i * cols + j)];
        want[static_cast<std::size_t>(i)] += v * v + v;
      }
    fault_case c;
    c.name = std::string("sum(lazy(sq(m)) + m, axis=1) on ") + Tg::name;
    c.run = [=] { return doubles(ufunc::sum(ufunc::lazy(sq(*mat)) + *mat, ufunc::axis(1)).to_host()); };
    c.want = want;
    cases.push_back(c);
  }
  return cases;
}

template <class Tg>
std::vector<fault_case> method_and_vectorize_cases(std::uint64_t seed) {
  std::vector<fault_case> cases;
  const index_t rows = 4, cols = 50'000;
  const auto hm = small_ints(static_cast<std::size_t>(rows * cols), seed);
  auto mat = std::make_shared<ufunc::array<float, Tg>>(ufunc::asarray<Tg>(hm, ufunc::shape{rows, cols}));
  auto add = ufunc::vectorize<Tg>([] UFUNC_HD (float a, float b) { return a + b; }, "add");
  {
    fault_case c;
    c.name = std::string("add.accumulate(m, axis=1) on ") + Tg::name;
    c.run = [=] { return doubles(add.accumulate(*mat, ufunc::axis(1)).to_host()); };
    std::vector<double> want(hm.size());
    for (index_t i = 0; i < rows; ++i) {
      double s = 0;
      for (index_t j = 0; j < cols; ++j) want[static_cast<std::size_t>(i * cols + j)] = s += hm[static_cast<std::size_t>(i * cols + j)];
    }
    c.want = want;
    cases.push_back(c);
  }
  {
    fault_case c;
    c.name = std::string("add.reduce(m.T) (axis 0) on ") + Tg::name;
    c.run = [=] { return doubles(add.reduce(mat->view().transposed()).to_host()); };
    std::vector<double> want(static_cast<std::size_t>(rows), 0.0);
    for (index_t i = 0; i < rows; ++i)
      for (index_t j = 0; j < cols; ++j) want[static_cast<std::size_t>(i)] += hm[static_cast<std::size_t>(i * cols + j)];
    c.want = want;
    cases.push_back(c);
  }
  const auto hx = small_ints(300, seed + 1), hy = small_ints(200, seed + 2);
  auto x = std::make_shared<ufunc::array<float, Tg>>(ufunc::asarray<Tg>(hx));
  auto y = std::make_shared<ufunc::array<float, Tg>>(ufunc::asarray<Tg>(hy));
  {
    fault_case c;
    c.name = std::string("add.outer(x, y) on ") + Tg::name;
    c.run = [=] { return doubles(add.outer(*x, *y).to_host()); };
    std::vector<double> want;
    for (float a : hx)
      for (float b : hy) want.push_back(double(a) + b);
    c.want = want;
    cases.push_back(c);
  }
  {
    // Three new results: the second or third refused must free the ones before.
    auto three = ufunc::vectorize<Tg>(
        [] UFUNC_HD (float a, float b) { return cuda::std::make_tuple(a + b, a - b, static_cast<double>(a) * b); },
        "three");
    fault_case c;
    c.name = std::string("three-output vectorize -> 3 new arrays on ") + Tg::name;
    c.run = [=] {
      auto [s, d, p] = three(*mat, *mat);
      auto r = doubles(s.to_host());
      for (auto v : d.to_host()) r.push_back(v);
      for (auto v : p.to_host()) r.push_back(v);
      return r;
    };
    std::vector<double> want;
    for (float v : hm) want.push_back(double(v) + v);
    for (std::size_t i = 0; i < hm.size(); ++i) want.push_back(0.0);
    for (float v : hm) want.push_back(double(v) * v);
    c.want = want;
    cases.push_back(c);
  }
  {
    // Lazy: two temporary leaves made eagerly, then one fused kernel into out.
    auto sq = ufunc::vectorize<Tg>([] UFUNC_HD (float v) { return v * v; }, "sq");
    auto o = std::make_shared<restorable<float, Tg>>(small_ints(hm.size(), seed + 3, 100, 200), ufunc::shape{rows, cols});
    fault_case c;
    c.name = std::string("evaluate(lazy(sq(m)) * 2 + sq(m), out=o) on ") + Tg::name;
    c.run = [=] {
      ufunc::evaluate(ufunc::lazy(sq(*mat)) * 2.0f + sq(*mat), ufunc::out(o->a));
      return o->now();
    };
    std::vector<double> want;
    for (float v : hm) want.push_back(3.0 * v * v);
    c.want = want;
    c.out_now = [=] { return o->now(); };
    c.reset_out = [=] { o->reset(); };
    cases.push_back(c);
    fault_case d = c;
    d.name = std::string("evaluate(lazy(sq(m)) * 2 + sq(m)) -> new array on ") + Tg::name;
    d.run = [=] { return doubles(ufunc::evaluate(ufunc::lazy(sq(*mat)) * 2.0f + sq(*mat)).to_host()); };
    d.out_now = [] { return std::vector<double>{}; };
    d.reset_out = [] {};
    cases.push_back(d);
  }
  return cases;
}

template <class Tg>
void run_fault_cases(std::vector<fault_case> (*make)(std::uint64_t)) {
  const auto seed = test::fresh_seed();
  INFO("target " << std::string(Tg::name) << ", seed " << seed);
  long total = 0;
  std::string summary;
  for (const auto& c : make(seed)) {
    const long n = every_fault_point(c);
    summary += "\n  " + c.name + ": " + std::to_string(n);
    total += n;
  }
  MESSAGE("fault points tried per call:" << summary);
  CHECK(total > 0);
}

/// A reduction to a host value as the first call of a fresh thread, refused at
/// each of its allocations (on CUDA these include the thread's scratch block and
/// pinned result slot, which the library then keeps for the thread's later
/// calls): it throws, the thread's next call succeeds, and once the thread has
/// ended everything it took is freed.
template <class Tg>
void fresh_thread_fault_points() {
  const auto seed = test::fresh_seed();
  INFO("target " << std::string(Tg::name) << ", seed " << seed);
  const auto hx = small_ints(200'000, seed);
  double want = 0;
  for (float v : hx) want += v;
  const auto x = ufunc::asarray<Tg>(hx);
  // One thread's run: refuse from allocation k on (k = 0: none), then sum again.
  auto on_fresh_thread = [&](long long k, long long& attempts, bool& oom, double& got) {
    std::exception_ptr error;
    std::thread t([&] {
      try {
        const long long a = alloc::allocation_attempts();
        alloc::set_allocation_limit(k);
        try {
          (void)ufunc::sum(x);
        } catch (const ufunc::out_of_memory&) {
          oom = true;
        }
        alloc::clear_allocation_limit();
        attempts = alloc::allocation_attempts() - a;
        got = ufunc::sum(x);
      } catch (...) {
        alloc::clear_allocation_limit();
        error = std::current_exception();
      }
    });
    t.join();
    if (error) std::rethrow_exception(error);
  };
  // What the process keeps once made (on CUDA the block of per-stream counters,
  // made by the first whole reduction of the process) is made here, so the count
  // holds whichever test ran first (a suite of a few files may start with this one).
  CHECK(ufunc::sum(x) == want);
  const long long live0 = alloc::live_allocations();
  long long n = 0;
  bool oom = false;
  double got = 0;
  on_fresh_thread(0, n, oom, got);
  CHECK(!oom);
  CHECK(got == want);
  CHECK(alloc::live_allocations() == live0);
  for (long long k = 1; k <= n; ++k) {
    INFO("allocation " << k << " of " << n << " refused");
    long long attempts = 0;
    oom = false;
    got = 0;
    on_fresh_thread(k, attempts, oom, got);
    CHECK(oom);
    CHECK(got == want);
    CHECK(alloc::live_allocations() == live0);  // the thread's caches went with it
  }
  MESSAGE("sum(x) -> host value as a fresh thread's first call on " << std::string(Tg::name) << ": " << n
                                                                       << " fault points");
}

}  // namespace

TEST_CASE("faults: the first reduction to a host value on a fresh thread (its scratch and pinned slot)") {
  test::for_each_target([](auto tg) { fresh_thread_fault_points<decltype(tg)>(); });
}

TEST_CASE("faults: out-of-memory inside matmul and transpose leaves out untouched and frees what it took") {
  test::for_each_target([](auto tg) { run_fault_cases<decltype(tg)>(&linalg_cases<decltype(tg)>); });
}

TEST_CASE("faults: out-of-memory inside reductions (whole, axis, into out, of expressions)") {
  test::for_each_target([](auto tg) { run_fault_cases<decltype(tg)>(&reduction_cases<decltype(tg)>); });
}

TEST_CASE("faults: out-of-memory inside ufunc methods, several-output vectorize and lazy evaluation") {
  test::for_each_target([](auto tg) { run_fault_cases<decltype(tg)>(&method_and_vectorize_cases<decltype(tg)>); });
}

TEST_CASE("faults: the allocation limit refuses exactly from the k-th allocation on, and counts live ones") {
  // The hook itself, on the arrays of every target: a check that cannot pass
  // when the limit or the counters do nothing.
  test::for_each_target([](auto tg) {
    using Tg = decltype(tg);
    const long long live = alloc::live_allocations();
    alloc::set_allocation_limit(3);
    ufunc::array<float, Tg> a(ufunc::shape{10}), b(ufunc::shape{10});
    CHECK(alloc::live_allocations() == live + 2);
    CHECK_THROWS_AS((ufunc::array<float, Tg>(ufunc::shape{10})), ufunc::out_of_memory);
    CHECK_THROWS_AS((ufunc::array<float, Tg>(ufunc::shape{10})), ufunc::out_of_memory);
    alloc::clear_allocation_limit();
    ufunc::array<float, Tg> c(ufunc::shape{10});
    ufunc::array<float, Tg> empty(ufunc::shape{0});  // no memory, not counted
    CHECK(alloc::live_allocations() == live + 3);
    const std::string msg = test::message_of<ufunc::out_of_memory>([] {
      alloc::set_allocation_limit(1);
      ufunc::array<double, Tg> d(ufunc::shape{4});
    });
    alloc::clear_allocation_limit();
    CHECK(test::contains(msg, "test allocation limit"));
    CHECK(test::contains(msg, "32 bytes"));
  });
}
