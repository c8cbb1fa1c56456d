// Streaming host data through the device, part two (see test_streaming.cpp; part
// three: test_streaming_init.cpp): a CUDA error mid-pipeline, reductions of
// std::vector and pinned inputs in many chunks, device expressions with
// host-memory leaves; each streamed call compared with the same call in memory.
#include "streaming_support.hpp"

using namespace streaming_test;

#if defined(UFUNC_TESTING)

TEST_CASE("streaming: a CUDA error mid-pipeline drains, frees, leaves inputs and keeps the rows before it") {
  if (!ufunc::cuda_backend) return;  // the host backend has no pipeline to interrupt
  namespace tst = ufunc::detail::testing;
  const std::uint64_t seed = test::fresh_seed();
  INFO("seed " << seed);
  const index_t m = 97, n = 33;
  const shape s{m, n};
  const auto hx = test::random_vector<float>(static_cast<std::size_t>(s.count()), seed);
  const auto hy = test::random_vector<float>(static_cast<std::size_t>(s.count()), seed + 1);
  const auto hx0 = hx, hy0 = hy;
  const auto mul = ufunc::vectorize([] UFUNC_HD (float u, float v) { return u * v; }, "mul");
  const limit_scope lim(3 * 4 * 33 * 3 * 5);  // about five rows a chunk: about 20 chunks
  const auto hxv = ufunc::make_view<ufunc::target::host>(hx.data(), s);
  const auto hyv = ufunc::make_view<ufunc::target::host>(hy.data(), s);
  std::vector<float> want(hx.size());
  for (std::size_t i = 0; i < want.size(); ++i) want[i] = hx[i] * hy[i];
  constexpr float old = 7.0f;  // what out holds before each call

  std::vector<float> o(want.size(), old);
  ufunc::pinned_array<float> po(s);
  auto pageable = [&] { mul(hxv, hyv, ufunc::out(ufunc::make_view<ufunc::target::host>(o.data(), s))); };
  auto pinned = [&] { mul(hxv, hyv, ufunc::out(po)); };
  // Warm runs: the staging cache and the streams exist before the baseline.
  pageable();
  pinned();
  CHECK(same_bits(o, want));
  CHECK(same_bits(po.to_host(), want));
  const long long chunks = tst::pipeline().chunks.load();
  // Elements a full chunk covers (the planner may merge dims: a chunk's rows
  // are then rows of the merged shape, not of s).
  const long long per_chunk = tst::pipeline().chunk_elems.load();
  const long long nb = tst::pipeline().buffers.load();
  REQUIRE(chunks >= 2 * nb + 2);
  const long long live0 = tst::live_allocations();
  CHECK(staging_out() == 0u);

  for (const long long k : {0LL, 1LL, nb, chunks / 2, chunks - 1}) {
    for (const bool pin : {false, true}) {
      INFO("fault at chunk " << k << " of " << chunks << std::string(pin ? ", pinned out" : ", pageable out"));
      std::fill(o.begin(), o.end(), old);
      std::fill(po.data(), po.data() + po.size(), old);
      tst::set_pipeline_fault(k);
      CHECK_THROWS_AS(pin ? pinned() : pageable(), ufunc::cuda_error);
      tst::clear_pipeline_fault();
      CHECK(tst::live_allocations() == live0);
      CHECK(staging_out() == 0u);
      CHECK(same_bits(hx, hx0));
      CHECK(same_bits(hy, hy0));
      // The note's guarantee: a pinned out holds every chunk enqueued before
      // the failure (its copies were drained); a pageable out the chunks
      // already moved out of staging (0 .. k - buffers); the rest is untouched.
      const long long done_chunks = pin ? k : std::max(0LL, k - nb + 1);
      const std::size_t done = static_cast<std::size_t>(std::min<long long>(done_chunks * per_chunk, s.count()));
      const std::vector<float> got = pin ? po.to_host() : o;
      CHECK(std::memcmp(got.data(), want.data(), done * sizeof(float)) == 0);
      CHECK(std::all_of(got.begin() + static_cast<std::ptrdiff_t>(done), got.end(), [&](float v) { return v == old; }));
      // The device is still usable: the same call now succeeds.
      if (pin) {
        pinned();
        CHECK(same_bits(po.to_host(), want));
      } else {
        pageable();
        CHECK(same_bits(o, want));
      }
      CHECK(tst::live_allocations() == live0);
    }
  }

  // A streamed reduction (partials along axis 0, and a whole sum of a
  // std::vector): the fault frees everything; the next call gives the same result.
  const auto px = pinned_of(hx, s);
  auto red0 = [&] { return ufunc::sum(px, ufunc::axis(0)).to_host(); };
  auto redall = [&] { return ufunc::sum(hx); };
  const auto got0 = red0();
  const long long rchunks0 = tst::pipeline().chunks.load();
  const float gotall = redall();
  const long long rchunksall = tst::pipeline().chunks.load();
  REQUIRE(rchunks0 >= 2);
  REQUIRE(rchunksall >= 2);
  const long long live1 = tst::live_allocations();
  for (const long long k : {0LL, rchunks0 / 2, rchunks0 - 1}) {
    INFO("axis-0 sum: fault at chunk " << k << " of " << rchunks0);
    tst::set_pipeline_fault(k);
    CHECK_THROWS_AS((void)red0(), ufunc::cuda_error);
    tst::clear_pipeline_fault();
    CHECK(tst::live_allocations() == live1);
    CHECK(staging_out() == 0u);
    CHECK(same_bits(px.to_host(), hx0));
    CHECK(same_bits(red0(), got0));
  }
  for (const long long k : {0LL, rchunksall / 2, rchunksall - 1}) {
    INFO("whole sum: fault at chunk " << k << " of " << rchunksall);
    tst::set_pipeline_fault(k);
    CHECK_THROWS_AS((void)redall(), ufunc::cuda_error);
    tst::clear_pipeline_fault();
    CHECK(tst::live_allocations() == live1);
    CHECK(staging_out() == 0u);
    CHECK(same_bits(hx, hx0));
    CHECK(redall() == gotall);
  }
  double abs_sum = 0, ref = 0;
  for (float v : hx) abs_sum += std::fabs(v), ref += v;
  CHECK(std::fabs(gotall - ref) <= (std::log2(double(m * n)) + double(rchunksall) + 2) * 1.2e-7 * abs_sum);
}
#endif

namespace {
struct sq_diff_fn {
  UFUNC_HD double operator()(float a, double b) const { return (a - b) * (a - b); }
};
}  // namespace

TEST_CASE("streaming: reductions of std::vector and pinned inputs in many chunks") {
  const std::uint64_t seed = test::fresh_seed();
  INFO("seed " << seed);
  const index_t m = 203, n = 31;
  const shape s{m, n};
  const auto h = test::random_vector<float>(static_cast<std::size_t>(m * n), seed);
  const auto hb = test::random_vector<double>(static_cast<std::size_t>(n), seed + 1);
  const auto d = ufunc::to_device(h, s);
  const auto db = ufunc::to_device(hb);
  auto p = pinned_of(h, s);
  // Few rows per chunk: along axis 0 every chunk is a partial result.
  const limit_scope lim(3 * 4 * n * 7 + 3 * 8 * n + 8 * n + 1024);
  // Float sums: the in-memory tree and the chunked order differ by rounding;
  // bound it by (log2(N) + chunks) eps sum|x| (the note's bound), chunks <= m.
  double abs_sum = 0;
  for (float v : h) abs_sum += std::fabs(v);
  const double tol = (std::log2(double(m * n)) + double(m) + 2) * 1.2e-7 * abs_sum;
  SUBCASE("whole sum of a std::vector and of a pinned array") {
    const double want = ufunc::sum(d);
    CHECK(std::fabs(ufunc::sum(h) - want) <= tol);
    CHECK(std::fabs(ufunc::sum(p) - want) <= tol);
  }
  SUBCASE("min and max are exact") {
    CHECK(ufunc::max(h) == ufunc::max(d));
    CHECK(ufunc::min(p) == ufunc::min(d));
  }
  SUBCASE("axis 0 (partials) and axis 1 (kept rows)") {
    const auto w0 = ufunc::sum(d, ufunc::axis(0)).to_host();
    const auto g0 = ufunc::sum(p, ufunc::axis(0)).to_host();
    REQUIRE(g0.size() == w0.size());
    for (std::size_t j = 0; j < w0.size(); ++j) CHECK(std::fabs(g0[j] - w0[j]) <= tol);
    // Along kept rows nothing is folded: the same per-row engine, bit for bit.
    const auto w1 = ufunc::sum(d, ufunc::axis(1), ufunc::keepdims).to_host();
    CHECK(same_bits(ufunc::sum(p, ufunc::axis(1), ufunc::keepdims).to_host(), w1));
    CHECK(same_bits(ufunc::max(p, ufunc::axis(0)).to_host(), ufunc::max(d, ufunc::axis(0)).to_host()));
  }
  SUBCASE("map_reduce of a pinned input and a device row") {
    const auto msd = ufunc::map_reduce(sq_diff_fn{}, ufunc::plus{});
    const double want = msd(d, db);
    double abs2 = 0;
    for (index_t i = 0; i < m; ++i)
      for (index_t j = 0; j < n; ++j) abs2 += sq_diff_fn{}(h[static_cast<std::size_t>(i * n + j)], hb[static_cast<std::size_t>(j)]);
    CHECK(std::fabs(msd(p, db) - want) <= (std::log2(double(m * n)) + double(m) + 2) * 2.3e-16 * abs2);
  }
}

TEST_CASE("streaming: device expressions with host-memory leaves evaluate and reduce in chunks") {
  const std::uint64_t seed = test::fresh_seed();
  INFO("seed " << seed);
  const index_t m = 149, n = 29;
  const shape s{m, n};
  const auto hx = test::random_vector<float>(static_cast<std::size_t>(m * n), seed);
  const auto hy = test::random_vector<float>(static_cast<std::size_t>(m * n), seed + 1);
  const auto hb = test::random_vector<float>(static_cast<std::size_t>(n), seed + 2);
  const auto dx = ufunc::to_device(hx, s), dy = ufunc::to_device(hy, s), db = ufunc::to_device(hb);
  const auto mul = ufunc::vectorize([] UFUNC_HD (float a, float b) { return a * b; }, "mul");
  const auto add = ufunc::vectorize([] UFUNC_HD (float a, float b) { return a + b; }, "add");
  // In memory first (device leaves only), then streamed under a limit of a few rows.
  const auto want = ufunc::evaluate(add.lazy(mul.lazy(dx, dy), db)).to_host();
  const auto want_ops = ufunc::evaluate(mul.lazy(dx, dy) * 2.0f + ufunc::lazy(dy)).to_host();
  const auto want_rows = ufunc::sum(mul.lazy(dx, dy), ufunc::axis(1)).to_host();
  const auto want_mean0 = ufunc::mean(add.lazy(dx, db), ufunc::axis(0)).to_host();
  const float want_all = ufunc::sum(mul.lazy(dx, dy));
  const limit_scope lim(3 * 4 * n * 5 * 3 + 4 * n + 1024);
  const auto px = pinned_of(hx, s);
  const auto hyv = ufunc::make_view<ufunc::target::host>(hy.data(), s);
  const auto hbv = ufunc::make_view<ufunc::target::host>(hb.data(), shape{n});

  SUBCASE("evaluate: pinned and pageable leaves, a device leaf; new array, device out, host out") {
    const auto e = add.lazy(mul.lazy(px, hyv), db);
    CHECK(same_bits(ufunc::evaluate(e).to_host(), want));
    ufunc::array<float> od(s);
    ufunc::evaluate(e, ufunc::out(od));
    CHECK(same_bits(od.to_host(), want));
    std::vector<float> oh(want.size(), -1.0f);
    ufunc::evaluate(add.lazy(mul.lazy(px, hyv), hbv), ufunc::out(ufunc::make_view<ufunc::target::host>(oh.data(), s)));
    CHECK(same_bits(oh, want));
    // An eager call whose argument is such an expression fuses and streams too.
    CHECK(same_bits(add(mul.lazy(px, hyv), db).to_host(), want));
  }
  SUBCASE("operators join host leaves to a device expression") {
    CHECK(same_bits(ufunc::evaluate(mul.lazy(px, dy) * 2.0f + ufunc::lazy(hyv)).to_host(), want_ops));
    CHECK(same_bits(ufunc::evaluate(ufunc::lazy(hyv) + mul.lazy(dx, hyv) * 2.0f).to_host(), want_ops));
  }
  SUBCASE("reductions of the expression: kept rows bit for bit, partials within the sum bound") {
    CHECK(same_bits(ufunc::sum(mul.lazy(px, hyv), ufunc::axis(1)).to_host(), want_rows));
    double abs_sum = 0;
    for (std::size_t i = 0; i < hx.size(); ++i) abs_sum += std::fabs(double(hx[i]) * hy[i]);
    const double tol = (std::log2(double(m * n)) + double(m) + 2) * 1.2e-7 * abs_sum;
    CHECK(std::fabs(double(ufunc::sum(mul.lazy(px, hyv))) - want_all) <= tol);
    const auto g0 = ufunc::mean(add.lazy(px, hbv), ufunc::axis(0)).to_host();
    REQUIRE(g0.size() == want_mean0.size());
    double abs0 = 0;
    for (std::size_t i = 0; i < hx.size(); ++i) abs0 += std::fabs(double(hx[i]) + hb[i % static_cast<std::size_t>(n)]);
    const double tol0 = (std::log2(double(m)) + double(m) + 2) * 1.2e-7 * abs0 / double(m);
    for (std::size_t j = 0; j < g0.size(); ++j) CHECK(std::fabs(double(g0[j]) - want_mean0[j]) <= tol0);
  }
  // Leaves are only read.
  CHECK(same_bits(px.to_host(), hx));
  CHECK(same_bits(dy.to_host(), hy));
}
