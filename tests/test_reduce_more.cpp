// Reductions over whole arrays, part two (part one: test_reduce.cpp): argmin and
// argmax against a serial loop, the float sums' tree order and accuracy against
// NumPy's pairwise sums, host arrays and std::vector inputs, streams. References
// are computed over host copies, in double.
#include "reduce_support.hpp"

#include <string>
#include <thread>

namespace {
template <class T>
bool is_nan_value(T v) {
  if constexpr (std::is_floating_point_v<T>)
    return std::isnan(v);
  else
    return false;
}

// The first position of the smallest (Max: largest) value, the first NaN winning:
// NumPy's argmin/argmax, by a serial loop.
template <bool Max, class T>
index_t serial_arg(const T* p, index_t n, index_t stride = 1) {
  index_t best = 0;
  for (index_t i = 0; i < n; ++i) {
    const T v = p[i * stride], b = p[best * stride];
    if (is_nan_value(b)) break;
    if (is_nan_value(v) || (Max ? b < v : v < b)) best = i;
  }
  return best;
}

// Values from a small set (many ties), a few NaNs for floating types, as T.
template <class T>
std::vector<T> tied_values(std::size_t n, std::mt19937_64& rng, bool nans) {
  std::uniform_int_distribution<int> d(-20, 20);
  std::vector<T> h(n);
  for (auto& v : h) v = static_cast<T>(d(rng));
  if constexpr (std::is_floating_point_v<T>)
    if (nans && n > 0)
      for (int k = 0; k < 2; ++k) h[std::uniform_int_distribution<std::size_t>(0, n - 1)(rng)] = std::numeric_limits<T>::quiet_NaN();
  return h;
}

// Axes: rows and columns too (else whole arrays only: fewer kernels to compile).
template <class T, bool Axes = true>
void check_arg_reductions(std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  for (index_t n : {1, 3, 4, 5, 8, 33, 1000, 4097, 65541, (1 << 20) + 3}) {
    for (bool nans : {false, true}) {
      // One extreme value planted late, so that it improves on the ties (and
      // one early, so that nothing later does).
      // Plant 3: the type's extremes (infinities; the integers' limits), the
      // ends of the CUDA kernels' packed keys.
      for (int plant = 0; plant < 4; ++plant) {
        auto h = tied_values<T>(static_cast<std::size_t>(n) + 1, rng, nans);
        if (plant > 0) {
          const auto at = plant == 1 ? h.size() - 2 : h.size() / 7;
          using lim = std::numeric_limits<T>;
          const T hi = plant < 3 ? static_cast<T>(30) : lim::has_infinity ? lim::infinity() : lim::max();
          const T lo = plant < 3 ? static_cast<T>(-30) : lim::has_infinity ? -lim::infinity() : lim::lowest();
          h[at] = hi, h[h.size() - 1 - at] = lo;
        }
        INFO("n = " << n << ", nans " << nans << ", plant " << plant);
        const auto x = ufunc::to_device(h);
        // Whole array, and the same data one element in (not 16-byte aligned).
        CHECK(ufunc::argmax(x.view().sliced(0, 0, n)) == serial_arg<true>(h.data(), n));
        CHECK(ufunc::argmin(x.view().sliced(0, 0, n)) == serial_arg<false>(h.data(), n));
        CHECK(ufunc::argmax(x.view().sliced(0, 1, n + 1)) == serial_arg<true>(h.data() + 1, n));
        CHECK(ufunc::argmin(x.view().sliced(0, 1, n + 1)) == serial_arg<false>(h.data() + 1, n));
      }
    }
  }
  // Rows of several lengths (the row kernels' block and group paths) and columns.
  if constexpr (Axes) {
    for (index_t cols : {4, 12, 64, 1000, 5000}) {
      const index_t rows = std::max<index_t>(3, (1 << 18) / cols);
      const auto h = tied_values<T>(static_cast<std::size_t>(rows * cols), rng, true);
      const auto x = ufunc::to_device(h, {rows, cols});
      INFO("rows " << rows << ", cols " << cols);
      const auto amax = ufunc::argmax(x, ufunc::axis(1)).to_host();
      const auto amin = ufunc::argmin(x, ufunc::axis(1)).to_host();
      const auto cmax = ufunc::argmax(x, ufunc::axis(0)).to_host();
      bool rows_ok = true, cols_ok = true;
      for (index_t r = 0; r < rows; ++r)
        rows_ok &= amax[r] == serial_arg<true>(h.data() + r * cols, cols) &&
                   amin[r] == serial_arg<false>(h.data() + r * cols, cols);
      for (index_t c = 0; c < cols; ++c) cols_ok &= cmax[c] == serial_arg<true>(h.data() + c, rows, cols);
      CHECK(rows_ok);
      CHECK(cols_ok);
    }
  }
  // -0 and +0 compare equal: the first of them wins, across blocks too (the
  // CUDA kernels give both one key). Values that lose first (-1 for argmax, +1
  // for argmin, so the answer is no index a stale result holds), then 2^17 zeros
  // of one sign, then the other sign to the end.
  if constexpr (std::is_floating_point_v<T>) {
    const std::size_t n = (std::size_t(1) << 20) + 3, zeros = std::size_t(1) << 17;
    for (bool neg_first : {false, true}) {
      const T a = neg_first ? -T(0) : T(0), b = neg_first ? T(0) : -T(0);
      for (bool max : {true, false}) {
        const std::size_t p = max ? zeros : zeros + 5;  // the first zero
        std::vector<T> h(n, b);
        std::fill(h.begin(), h.begin() + p, max ? T(-1) : T(1));
        std::fill(h.begin() + p, h.begin() + p + zeros, a);
        const auto x = ufunc::to_device(h);
        INFO("signed zeros, -0 first " << neg_first << ", argmax " << max);
        const index_t got = max ? ufunc::argmax(x) : ufunc::argmin(x);
        CHECK(got == static_cast<index_t>(p));
        CHECK(got == (max ? serial_arg<true>(h.data(), index_t(n)) : serial_arg<false>(h.data(), index_t(n))));
      }
    }
  }
}
}  // namespace

TEST_CASE("reduce: argmin/argmax against a serial loop: ties, NaNs, planted extremes, every size and type") {
  const auto seed = test::fresh_seed();
  INFO("seed " << seed);
  check_arg_reductions<float>(seed);
  check_arg_reductions<double>(seed + 1);
  check_arg_reductions<int>(seed + 2);
  check_arg_reductions<std::int8_t>(seed + 3);
  // Whole arrays only: every type the CUDA kernels pack (kernels/reduce_arg_dense.cuh).
  check_arg_reductions<std::uint32_t, false>(seed + 4);  // tied values near 2^32 (negatives wrap)
  check_arg_reductions<std::int16_t, false>(seed + 5);
}

TEST_CASE("reduce: float sums use a tree order: error like log N, not N (2^24 values)") {
  const std::size_t n = std::size_t(1) << 24;
  const auto seed = test::fresh_seed();
  INFO("seed " << seed);
  std::mt19937_64 rng(seed);
  // Mean 1.5: the running sum passes 2^24 two thirds of the way, after which float
  // spacing is 2 and a serial loop rounds nearly every term (1 < x < 2) up to 2:
  // millions off, where any tree order stays within the bound.
  std::normal_distribution<float> d(1.5f, 0.25f);
  std::vector<float> h(n);
  for (auto& v : h) v = d(rng);
  const double ref = dsum(h), bound = tree_bound(n, dabs_sum(h));
  float serial = 0;
  for (float v : h) serial += v;
  INFO("reference " << ref << ", serial float loop " << serial << ", bound " << bound);
  CHECK(std::fabs(serial - ref) > bound);  // the bound tells a serial order from a tree
  const float s = ufunc::sum(ufunc::to_device(h));
  INFO("ufunc::sum " << s << ", error " << std::fabs(s - ref));
  CHECK(std::fabs(s - ref) <= bound);
  auto hx = ufunc::asarray<ufunc::target::host>(h);
  CHECK(std::fabs(ufunc::sum(hx) - ref) <= bound);
}

TEST_CASE("reduce: host arrays reduce on the host target in every build; std::vector inputs") {
  const auto seed = test::fresh_seed();
  INFO("seed " << seed);
  const auto h = test::random_vector<float>(3000, seed);
  const auto hx = ufunc::asarray<ufunc::target::host>(h, {30, 100});
  const auto r = ufunc::sum(hx, ufunc::axis(1));
  static_assert(std::is_same_v<decltype(r), const ufunc::array<float, ufunc::target::host>>);
  const auto g = groups(h, test::contiguous({30, 100}), {30, 100}, {false, true});
  for (std::size_t o = 0; o < 30; ++o) CHECK(std::fabs(r.data()[o] - dsum(g[o])) <= tree_bound(100, dabs_sum(g[o])));
  CHECK(ufunc::max(h) == *std::max_element(h.begin(), h.end()));  // std::vector input
  const auto dot = ufunc::map_reduce(mul_f{}, ufunc::plus{});
  double dref = 0;
  for (float v : h) dref += double(v) * v;
  CHECK(dot(h, h) == doctest::Approx(dref).epsilon(1e-5));
}

#if defined(UFUNC_BACKEND_CUDA)
// The second passes over a first pass's partials are programmatic dependent
// launches (cuda_launch::launch_dependent); captured in a graph, each becomes a
// programmatic edge. Replays must give what direct calls give.
TEST_CASE("reduce: whole reductions captured in a CUDA graph replay correctly") {
  const auto seed = test::fresh_seed();
  INFO("seed " << seed);
  const std::size_t n = (std::size_t(1) << 22) + 5;
  const auto h = test::random_vector<float>(n, seed);
  const auto x = ufunc::to_device(h);
  auto s = ufunc::empty<float>(shape{}), d = ufunc::empty<float>(shape{});
  auto ri = ufunc::empty<ufunc::index_t>(shape{});
  const auto dot = ufunc::map_reduce(mul_f{}, ufunc::plus{});
  ufunc::synchronize();
  cudaStream_t cs;
  REQUIRE(cudaStreamCreateWithFlags(&cs, cudaStreamNonBlocking) == cudaSuccess);
  const ufunc::stream_ref st = cs;
  cudaGraph_t graph = nullptr;
  REQUIRE(cudaStreamBeginCapture(cs, cudaStreamCaptureModeThreadLocal) == cudaSuccess);
  ufunc::sum(x, ufunc::out(s), st);
  ufunc::argmax(x, ufunc::out(ri), st);
  dot(x, x, ufunc::out(d), st);
  REQUIRE(cudaStreamEndCapture(cs, &graph) == cudaSuccess);
  cudaGraphExec_t exec = nullptr;
  REQUIRE(cudaGraphInstantiate(&exec, graph, 0) == cudaSuccess);
  double sq = 0;  // (every term is non-negative: it is its own sum of magnitudes)
  for (float v : h) sq += double(v) * v;
  for (int rep = 0; rep < 3; ++rep) {
    // Results cleared between replays, so that each replay's are its own.
    REQUIRE(cudaMemsetAsync(s.data(), 0xff, sizeof(float), cs) == cudaSuccess);
    REQUIRE(cudaMemsetAsync(d.data(), 0xff, sizeof(float), cs) == cudaSuccess);
    REQUIRE(cudaMemsetAsync(ri.data(), 0xff, sizeof(ufunc::index_t), cs) == cudaSuccess);
    REQUIRE(cudaGraphLaunch(exec, cs) == cudaSuccess);
    REQUIRE(cudaStreamSynchronize(cs) == cudaSuccess);
    INFO("replay " << rep);
    CHECK(std::fabs(s.to_host()[0] - dsum(h)) <= tree_bound(n, dabs_sum(h)));
    CHECK(ri.to_host()[0] == serial_arg<true>(h.data(), static_cast<index_t>(n)));
    CHECK(std::fabs(d.to_host()[0] - sq) <= tree_bound(n, sq));
  }
  CHECK(cudaGraphExecDestroy(exec) == cudaSuccess);
  CHECK(cudaGraphDestroy(graph) == cudaSuccess);
  CHECK(cudaStreamDestroy(cs) == cudaSuccess);
}

// A whole argmin/argmax of a contiguous array, and a whole reduction through
// CUB whose first pass has few blocks, end in the kernel's last block, counted
// on a counter its stream owns (scratch.hpp's finish_counters). Four host
// threads, each with two streams of its own and its per-thread default stream,
// enqueue calls on all three before waiting: kernels on different streams run
// at once, each on its own counter, and each counter must be back at zero for
// its stream's next call. Sizes give more partials than the argmin/argmax last
// block loads in one round (1,024), ties across blocks (the first index wins)
// and NaNs (argmin/argmax); sums and maxima of finite values.
TEST_CASE("reduce: whole reductions on many streams and threads at once, finished by each kernel's last block") {
  const auto seed = test::fresh_seed();
  INFO("seed " << seed);
  constexpr int threads = 4, calls = 6;
  std::vector<std::string> errors(threads);
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t)
    pool.emplace_back([&, t] {
      std::mt19937_64 rng(seed + static_cast<std::uint64_t>(t));
      cudaStream_t own[2];
      for (auto& s : own)
        if (cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking) != cudaSuccess) errors[t] = "stream creation";
      const ufunc::stream_ref streams[3] = {own[0], own[1], cudaStreamPerThread};
      {  // the arrays free their memory on their streams: before those are destroyed
        std::vector<std::vector<float>> hf;
        std::vector<std::vector<double>> hd;
        std::vector<ufunc::array<float>> xf;
        std::vector<ufunc::array<double>> xd;
        std::vector<ufunc::array<index_t>> r;  // four 0-d results a call
        std::vector<std::vector<float>> hs;      // finite values
        std::vector<ufunc::array<float>> xs, rs;  // their sums and maxima
        for (int c = 0; c < calls; ++c) {
          const auto st = streams[c % 3];
          const std::size_t n = (std::size_t(1) << (21 + c % 3)) + static_cast<std::size_t>(c);
          hf.push_back(tied_values<float>(n, rng, c % 2 == 1));
          hd.push_back(tied_values<double>(n / 2 + 1, rng, c % 2 == 0));
          xf.push_back(ufunc::to_device(hf.back(), st));
          xd.push_back(ufunc::to_device(hd.back(), st));
          // Results start as values no reduction gives: one never written fails.
          for (int k = 0; k < 4; ++k) r.push_back(ufunc::full<index_t>(shape{}, index_t(-1), st));
          const std::size_t k0 = r.size() - 4;
          ufunc::argmax(xf.back(), ufunc::out(r[k0]), st);
          ufunc::argmin(xf.back(), ufunc::out(r[k0 + 1]), st);
          ufunc::argmin(xd.back(), ufunc::out(r[k0 + 2]), st);
          ufunc::argmax(xd.back(), ufunc::out(r[k0 + 3]), st);
          hs.push_back(test::random_vector<float>(n, rng()));
          xs.push_back(ufunc::to_device(hs.back(), st));
          for (int k = 0; k < 2; ++k) rs.push_back(ufunc::full<float>(shape{}, std::nanf(""), st));
          ufunc::sum(xs.back(), ufunc::out(rs[rs.size() - 2]), st);
          ufunc::max(xs.back(), ufunc::out(rs[rs.size() - 1]), st);
        }
        for (const auto& s : streams) s.synchronize();
        for (int c = 0; c < calls && errors[t].empty(); ++c) {
          index_t g[4];
          for (int k = 0; k < 4; ++k) g[k] = r[static_cast<std::size_t>(4 * c + k)].to_host()[0];
          const auto nf = static_cast<index_t>(hf[c].size()), nd = static_cast<index_t>(hd[c].size());
          if (g[0] != serial_arg<true>(hf[c].data(), nf) || g[1] != serial_arg<false>(hf[c].data(), nf) ||
              g[2] != serial_arg<false>(hd[c].data(), nd) || g[3] != serial_arg<true>(hd[c].data(), nd))
            errors[t] = "call " + std::to_string(c) + ": float " + std::to_string(g[0]) + "/" + std::to_string(g[1]) +
                        ", double " + std::to_string(g[2]) + "/" + std::to_string(g[3]);
          const float sm = rs[static_cast<std::size_t>(2 * c)].to_host()[0];
          const float mx = rs[static_cast<std::size_t>(2 * c + 1)].to_host()[0];
          if (!(std::fabs(sm - dsum(hs[c])) <= tree_bound(hs[c].size(), dabs_sum(hs[c]))) ||  // (NaN fails)
              mx != *std::max_element(hs[c].begin(), hs[c].end()))
            errors[t] = "call " + std::to_string(c) + ": sum " + std::to_string(sm) + ", max " + std::to_string(mx);
        }
      }
      for (auto& s : own) cudaStreamDestroy(s);
    });
  for (auto& th : pool) th.join();
  for (int t = 0; t < threads; ++t) {
    INFO("thread " << t);
    CHECK(errors[t] == "");
  }
}

// A stream's reusable temporary (detail/cuda/scratch.hpp's stream_temp): many
// reductions into `out` back to back on one stream, from two host threads at
// once, with temporaries that grow (CUB's storage for larger inputs, the
// partials of double argmax and of tall columns), every result checked: a
// block reused before the stream's earlier work finished, or shared by two
// calls at once, gives wrong sums.
TEST_CASE("reduce: back-to-back reductions on one stream shared by two threads reuse its temporary safely") {
  const auto seed = test::fresh_seed();
  INFO("seed " << seed);
  cudaStream_t st = nullptr;
  REQUIRE(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking) == cudaSuccess);
  constexpr int threads = 2, calls = 24;
  std::vector<std::string> errors(threads);
  {
    std::vector<std::thread> pool;
    for (int t = 0; t < threads; ++t)
      pool.emplace_back([&, t] {
        std::mt19937_64 rng(seed + 100 + static_cast<std::uint64_t>(t));
        const ufunc::stream_ref s(st);
        std::vector<std::vector<float>> hx;
        std::vector<std::vector<double>> hd;
        std::vector<ufunc::array<float>> x, x2, sums, cols;
        std::vector<ufunc::array<double>> xd;
        std::vector<ufunc::array<index_t>> arg;
        for (int c = 0; c < calls; ++c) {
          // From 2^10 to 2^22 elements and back: the temporary grows, then fits.
          const int e = 10 + (c < calls / 2 ? c : calls - 1 - c);
          const std::size_t n = (std::size_t(1) << e) + static_cast<std::size_t>(rng() % 7);
          hx.push_back(test::random_vector<float>(n, rng()));
          hd.push_back(tied_values<double>(n / 2 + 3, rng, false));
          x.push_back(ufunc::to_device(hx.back(), s));
          xd.push_back(ufunc::to_device(hd.back(), s));
          sums.push_back(ufunc::full<float>(shape{}, std::nanf(""), s));
          arg.push_back(ufunc::full<index_t>(shape{}, index_t(-1), s));
          ufunc::sum(x.back(), ufunc::out(sums.back()), s);
          ufunc::argmax(xd.back(), ufunc::out(arg.back()), s);
          // Columns of a tall matrix (rows split over the GPU: partials).
          const index_t w = 4, rows = static_cast<index_t>(n) / w;
          x2.push_back(ufunc::to_device(hx.back().data(), shape{rows, w}, s));
          cols.push_back(ufunc::sum(x2.back(), ufunc::axis(0), s));
        }
        s.synchronize();
        for (int c = 0; c < calls && errors[t].empty(); ++c) {
          const auto& h = hx[static_cast<std::size_t>(c)];
          const float got = sums[static_cast<std::size_t>(c)].to_host()[0];
          if (!(std::fabs(got - dsum(h)) <= tree_bound(h.size(), dabs_sum(h))))
            errors[t] = "call " + std::to_string(c) + ": sum " + std::to_string(got) + ", want " + std::to_string(dsum(h));
          const auto& d = hd[static_cast<std::size_t>(c)];
          const index_t a = arg[static_cast<std::size_t>(c)].to_host()[0];
          if (a != serial_arg<true>(d.data(), static_cast<index_t>(d.size())))
            errors[t] = "call " + std::to_string(c) + ": argmax " + std::to_string(a);
          const auto cs = cols[static_cast<std::size_t>(c)].to_host();
          const index_t w = 4, rows = static_cast<index_t>(h.size()) / w;
          for (index_t j = 0; j < w && errors[t].empty(); ++j) {
            std::vector<float> col(static_cast<std::size_t>(rows));
            for (index_t r = 0; r < rows; ++r) col[static_cast<std::size_t>(r)] = h[static_cast<std::size_t>(r * w + j)];
            if (!(std::fabs(cs[static_cast<std::size_t>(j)] - dsum(col)) <= tree_bound(col.size(), dabs_sum(col))))
              errors[t] = "call " + std::to_string(c) + ": column " + std::to_string(j);
          }
        }
      });
    for (auto& th : pool) th.join();
  }
  cudaStreamDestroy(st);
  for (int t = 0; t < threads; ++t) {
    INFO("thread " << t);
    CHECK(errors[t] == "");
  }
}
#endif

TEST_CASE("reduce: a stream argument orders the work on that stream") {
  const auto h = test::random_vector<float>(100000, test::fresh_seed());
  ufunc::stream_ref s;
#if defined(UFUNC_BACKEND_CUDA)
  cudaStream_t cs;
  REQUIRE(cudaStreamCreateWithFlags(&cs, cudaStreamNonBlocking) == cudaSuccess);
  s = cs;
#endif
  {
    const auto x = ufunc::to_device(h, {1000, 100}, s);
    auto r = ufunc::sum(x, ufunc::axis(0), s);
    auto r0 = ufunc::empty<float>(shape{}, s);
    ufunc::sum(x, ufunc::out(r0), s);
    const float whole = ufunc::sum(x, s);
    s.synchronize();
    CHECK(std::fabs(r0.to_host()[0] - whole) <= 1e-3f * std::fabs(whole) + 1e-2f);
    const auto hr = r.to_host();
    const auto g = groups(h, test::contiguous({1000, 100}), {1000, 100}, {true, false});
    for (std::size_t o = 0; o < 100; ++o) CHECK(std::fabs(hr[o] - dsum(g[o])) <= tree_bound(1000, dabs_sum(g[o])));
  }
#if defined(UFUNC_BACKEND_CUDA)
  cudaStreamSynchronize(cs);
  cudaStreamDestroy(cs);
#endif
}


namespace {
/// NumPy's float32 pairwise sum (numpy/_core/src/umath/loops_utils.h.src) of n
/// elements at stride `st`, written here from its source: the accuracy the
/// library must reach on the same data.
float numpy_pairwise(const float* x, index_t n, index_t st) {
  if (n < 8) {
    float r = -0.0f;
    for (index_t i = 0; i < n; ++i) r += x[i * st];
    return r;
  }
  if (n <= 128) {
    float r[8];
    for (int k = 0; k < 8; ++k) r[k] = x[k * st];
    index_t i = 8;
    for (; i < n - n % 8; i += 8)
      for (int k = 0; k < 8; ++k) r[k] += x[(i + k) * st];
    float res = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]));
    for (; i < n; ++i) res += x[i * st];
    return res;
  }
  index_t n2 = n / 2;
  n2 -= n2 % 8;
  return numpy_pairwise(x, n2, st) + numpy_pairwise(x + n2 * st, n - n2, st);
}

/// One group's sum against a double reference: within the pairwise bound
/// 2 * log2(n) * eps * sum|x| always; on the host target also within twice the
/// error of NumPy's pairwise order on the same elements (or 8 eps sum|x|, below
/// which orders differ by luck only). `serial_ok`: the CUDA column kernel's runs
/// are serial per thread; there it must beat NumPy's own axis-0 order, a serial
/// loop over the rows.
void check_sum_error(float got, const float* x, index_t n, index_t st, bool host, bool serial_ok) {
  double ref = 0, abs_sum = 0;
  float serial = 0;
  for (index_t i = 0; i < n; ++i) ref += x[i * st], abs_sum += std::fabs(x[i * st]), serial += x[i * st];
  const double eps = std::ldexp(1.0, -24);
  const double bound = 2 * std::max(1.0, std::log2(static_cast<double>(n))) * eps * abs_sum;
  const double err = std::fabs(static_cast<double>(got) - ref);
  const double err_np = std::fabs(static_cast<double>(numpy_pairwise(x, n, st)) - ref);
  INFO("n " << n << ": got " << got << " error " << err << ", NumPy's pairwise error " << err_np << ", bound " << bound
            << ", serial error " << std::fabs(serial - ref));
  CHECK(err_np <= bound);  // the reference itself holds the bound
  if (serial_ok)
    CHECK(err <= std::max(bound, std::fabs(static_cast<double>(serial) - ref)));
  else
    CHECK(err <= bound);
  if (host) CHECK(err <= std::max(2 * err_np, 8 * eps * abs_sum));
}

template <class Tg>
void check_float_sum_accuracy(std::uint64_t seed) {
  constexpr bool host = std::is_same_v<Tg, ufunc::target::host>;
  INFO("target " << (host ? "host" : "device") << " seed " << seed);
  std::mt19937_64 rng(seed);
  for (index_t n : {index_t(1000), index_t(12344), (index_t(1) << 20) + 4, index_t(1) << 22}) {
    for (int data = 0; data < 3; ++data) {
      INFO("n " << n << " data " << data << " (0: 0.1f each, 1: uniform [0,1), 2: normal(1.5, 0.25))");
      std::vector<float> h(static_cast<std::size_t>(n));
      std::uniform_real_distribution<float> u(0.0f, 1.0f);
      std::normal_distribution<float> g(1.5f, 0.25f);
      for (auto& v : h) v = data == 0 ? 0.1f : data == 1 ? u(rng) : g(rng);
      const auto x = ufunc::asarray<Tg>(h);
      check_sum_error(ufunc::sum(x), h.data(), n, 1, host, false);
      // Rows (4, n/4) along axis 1 and columns (n/4, 4) along axis 0.
      const index_t q = n / 4;
      const auto x2 = ufunc::make_view<Tg>(x.data(), shape{4, q});
      const auto by_row = ufunc::sum(x2, ufunc::axis(1)).to_host();
      for (index_t r = 0; r < 4; ++r) check_sum_error(by_row[static_cast<std::size_t>(r)], h.data() + r * q, q, 1, host, false);
      const auto xc = ufunc::make_view<Tg>(x.data(), shape{q, 4});
      const auto by_col = ufunc::sum(xc, ufunc::axis(0)).to_host();
      for (index_t c = 0; c < 4; ++c) check_sum_error(by_col[static_cast<std::size_t>(c)], h.data() + c, q, 4, host, !host);
    }
  }
}
}  // namespace

TEST_CASE("reduce: float sums are as accurate as NumPy's pairwise sums (whole, rows, columns; up to 2^22)") {
  // Before: 2^22 x 0.1f summed to 419431.06 on the host (NumPy 419430.47, exact
  // 419430.41): serial leaves of 128, and columns summed serially.
  const auto seed = test::fresh_seed();
  test::for_each_target([&](auto tg) { check_float_sum_accuracy<decltype(tg)>(seed); });
}
