// Streaming host data through the device (issue 14). Every case computes the
// same call twice, once streamed (host operands: std::vector, host views,
// pinned_array) and once in memory (device arrays), under a device memory limit
// so small that the streamed call runs in many chunks, and compares them bit for
// bit (elementwise results do not depend on how the work is cut). On the host
// backend the device target is the host, nothing streams and both runs take the
// same path: the cases then check pinned_array and the limit API as ordinary
// host memory.
// Part one: elementwise calls, ranks, limits, refused allocations; part two
// (test_streaming_more.cpp): CUDA errors mid-pipeline, reductions, mean and out,
// expressions with host-memory leaves.
#include "streaming_support.hpp"

using namespace streaming_test;

TEST_CASE("streaming: elementwise over host data equals the in-memory call, bit for bit, in many chunks") {
  const std::uint64_t seed = test::fresh_seed();
  INFO("seed " << seed);
  const index_t m = 301, n = 37;  // odd sizes: the last chunk is short
  const shape s{m, n};
  const auto hx = test::random_vector<float>(static_cast<std::size_t>(m * n), seed);
  const auto hy = test::random_vector<float>(static_cast<std::size_t>(m * n), seed + 1);
  const auto hrow = test::random_vector<double>(static_cast<std::size_t>(n), seed + 2);   // (n,): fixed
  const auto hcol = test::random_vector<double>(static_cast<std::size_t>(m), seed + 3);   // (m,1): moves
  const auto dx = ufunc::to_device(hx, s), dy = ufunc::to_device(hy, s);
  const auto drow = ufunc::to_device(hrow), dcol = ufunc::to_device(hcol, shape{m, 1});
  const auto want_row = fma3(dx, dy, drow).to_host();
  const auto want_col = fma3(dx, dy, dcol).to_host();
  // A limit of a few rows: tens of chunks.
  const limit_scope lim(3 * 8 * n * 4 * 4 + n * 8);

  auto hxv = ufunc::make_view<ufunc::target::host>(hx.data(), s);
  auto hyv = ufunc::make_view<ufunc::target::host>(hy.data(), s);
  const auto hrowv = ufunc::make_view<ufunc::target::host>(hrow.data(), shape{n});
  const auto hcolv = ufunc::make_view<ufunc::target::host>(hcol.data(), shape{m, 1});
  SUBCASE("pageable host views, results in new host arrays") {
    CHECK(same_bits(fma3(hxv, hyv, hrowv).to_host(), want_row));
    CHECK(same_bits(fma3(hxv, hyv, hcolv).to_host(), want_col));
  }
  SUBCASE("pinned inputs, pinned out") {
    auto px = pinned_of(hx, s), py = pinned_of(hy, s);
    ufunc::pinned_array<double> po(s);
    fma3(px, py, hrowv, ufunc::out(po));
    CHECK(same_bits(po.to_host(), want_row));
  }
  SUBCASE("mixed: pinned, pageable and device inputs; device out") {
    auto px = pinned_of(hx, s);
    ufunc::array<double> o(s);
    fma3(px, hyv, dcol, ufunc::out(o));
    CHECK(same_bits(o.to_host(), want_col));
  }
  SUBCASE("a reversed device view beside a host input") {
    const auto dyr = dy.view().sliced(0, m - 1, -m - 1, -1);
    const auto want = fma3(dx, dyr, dcol).to_host();
    CHECK(same_bits(fma3(hxv, dyr, hcolv).to_host(), want));
  }
  SUBCASE("device inputs, pageable host out") {
    std::vector<double> o(static_cast<std::size_t>(m * n), -1.0);
    fma3(dx, dy, drow, ufunc::out(ufunc::make_view<ufunc::target::host>(o.data(), s)));
    CHECK(same_bits(o, want_row));
  }
  SUBCASE("std::vector inputs, a scalar, std::vector result") {
    const auto want = fma3(ufunc::to_device(hx), ufunc::to_device(hy), 2.5).to_host();
    CHECK(same_bits(fma3(hx, hy, 2.5), want));
  }
  SUBCASE("a bool result of std::vector inputs") {
    const auto pos = ufunc::vectorize(positive_fn{}, "positive");
    const std::vector<bool> got = pos(hx);
    REQUIRE(got.size() == hx.size());
    for (std::size_t i = 0; i < hx.size(); ++i) CHECK(got[i] == (hx[i] > 0));
  }
  SUBCASE("two outputs into host views") {
    const auto w = two_out(dx, dy);
    std::vector<float> d(static_cast<std::size_t>(m * n));
    std::vector<int> g(static_cast<std::size_t>(m * n));
    two_out(hxv, hyv, ufunc::out(ufunc::make_view<ufunc::target::host>(d.data(), s),
                                 ufunc::make_view<ufunc::target::host>(g.data(), s)));
    CHECK(same_bits(d, std::get<0>(w).to_host()));
    CHECK(same_bits(g, std::get<1>(w).to_host()));
  }
  SUBCASE("in place: out is the host input") {
    auto hz = hx;
    const auto neg = ufunc::vectorize([] UFUNC_HD (float v) { return -v; }, "neg");
    auto hzv = ufunc::make_view<ufunc::target::host>(hz.data(), s);
    neg(hzv, ufunc::out(hzv));
    std::vector<float> want(hx.size());
    for (std::size_t i = 0; i < hx.size(); ++i) want[i] = -hx[i];
    CHECK(same_bits(hz, want));
  }
  // Inputs are only read.
  CHECK(same_bits(hx, dx.to_host()));
  CHECK(same_bits(hy, dy.to_host()));
}

// A result vector past 32 MiB is made with its storage advised to huge pages
// (detail::new_host_vector, on the helper thread while the pipeline runs): the
// same values as the in-memory call, every element written.
TEST_CASE("streaming: a std::vector call past 32 MiB returns a new vector equal to the in-memory call") {
  const std::uint64_t seed = test::fresh_seed();
  INFO("seed " << seed);
  const auto n = static_cast<std::size_t>(ufunc::detail::huge_advice_min_bytes / sizeof(float) + 7);
  const auto h = test::random_vector<float>(n, seed);
  const auto f = ufunc::vectorize([] UFUNC_HD(float x) { return 2.0f * x + 1.0f; });
  const auto want = f(ufunc::to_device(h)).to_host();
  const std::vector<float> got = f(h);
  REQUIRE(got.size() == n);
  CHECK(same_bits(got, want));
}

TEST_CASE("streaming: rank 0, rank 3 with broadcast in the middle, and empty inputs") {
  const std::uint64_t seed = test::fresh_seed();
  INFO("seed " << seed);
  const limit_scope lim(4096);
  const auto add = ufunc::vectorize([] UFUNC_HD (float a, float b) { return a + b; }, "add");
  const shape s{7, 5, 9};
  const auto ha = test::random_vector<float>(static_cast<std::size_t>(s.count()), seed);
  const auto hb = test::random_vector<float>(7 * 9, seed + 1);  // (7,1,9)
  const auto want = add(ufunc::to_device(ha, s), ufunc::to_device(hb, shape{7, 1, 9})).to_host();
  const auto got = add(ufunc::make_view<ufunc::target::host>(ha.data(), s),
                       ufunc::make_view<ufunc::target::host>(hb.data(), shape{7, 1, 9}));
  CHECK(got.shape() == s);
  CHECK(same_bits(got.to_host(), want));
  // Rank 0.
  float x0 = 1.5f, y0 = -4.25f;
  const auto r0 = add(ufunc::make_view<ufunc::target::host>(&x0, shape{}), ufunc::make_view<ufunc::target::host>(&y0, shape{}));
  CHECK(r0.to_host() == std::vector<float>{x0 + y0});
  // Empty.
  const std::vector<float> e;
  CHECK(add(e, e).empty());
}

TEST_CASE("streaming: limits, pinned_array and refusals") {
  SUBCASE("the limit API") {
    ufunc::set_device_memory_limit(12345);
    CHECK(ufunc::device_memory_limit() == 12345u);
    ufunc::set_device_memory_limit(0);
    CHECK(ufunc::device_memory_limit() > 0u);
  }
  SUBCASE("pinned_array is an array: shape, views, host target calls, reductions") {
    const std::uint64_t seed = test::fresh_seed();
    INFO("seed " << seed);
    const auto h = test::random_vector<double>(60, seed);
    auto p = pinned_of(h, shape{6, 10});
    CHECK(p.shape() == shape{6, 10});
    CHECK(p.size() == 60);
    CHECK(p.view().is_contiguous());
    const auto sq = ufunc::vectorize<ufunc::target::host>([](double v) { return v * v; }, "sq");
    const auto r = sq(p).to_host();
    for (std::size_t i = 0; i < h.size(); ++i) CHECK(r[i] == h[i] * h[i]);
    CHECK(ufunc::max(p.view()) == *std::max_element(h.begin(), h.end()));
    ufunc::pinned_array<double> q = std::move(p);
    CHECK(q.shape() == shape{6, 10});
    CHECK(p.size() == 0);
  }
  SUBCASE("a limit below one row of chunk buffers throws out_of_memory naming the limit") {
    if (!ufunc::cuda_backend) return;  // the host backend moves nothing
    // One row of a 1-D call is one element of each operand: 3 buffers x 12 bytes.
    const limit_scope lim(16);
    const std::vector<float> a(1000, 1.0f);
    const auto add = ufunc::vectorize([] UFUNC_HD (float u, float v) { return u + v; }, "add");
    const std::string msg = test::message_of<ufunc::out_of_memory>([&] { (void)add(a, a); });
    CHECK(msg.find("set_device_memory_limit") != std::string::npos);
    CHECK(msg.find("add") != std::string::npos);
    // Device-resident calls are not affected by the limit.
    const auto d = ufunc::to_device(a);
    CHECK(add(d, d).to_host() == std::vector<float>(1000, 2.0f));
  }
  SUBCASE("a strided host view is refused before any work") {
    if (!ufunc::cuda_backend) return;
    std::vector<float> a(40, 1.0f);
    const auto v = ufunc::make_view<ufunc::target::host>(a.data(), shape{4, 10}).sliced(1, 0, 10, 2);
    const auto neg = ufunc::vectorize([] UFUNC_HD (float u) { return -u; }, "neg");
    CHECK_THROWS_AS((void)neg(v), ufunc::value_error);
  }
}

#if defined(UFUNC_TESTING)
TEST_CASE("streaming: a refused allocation mid-call frees everything and leaves inputs and out untouched") {
  namespace alloc = ufunc::detail::testing;
  const std::uint64_t seed = test::fresh_seed();
  INFO("seed " << seed);
  const shape s{97, 33};
  const auto hx = test::random_vector<float>(static_cast<std::size_t>(s.count()), seed);
  const auto hy = test::random_vector<float>(static_cast<std::size_t>(s.count()), seed + 1);
  const auto hx0 = hx, hy0 = hy;
  const auto mul = ufunc::vectorize([] UFUNC_HD (float u, float v) { return u * v; }, "mul");
  const limit_scope lim(3 * 4 * 33 * 3 * 5);  // about five rows a chunk
  std::vector<float> o(static_cast<std::size_t>(s.count()), 7.0f);
  auto run = [&] {
    mul(ufunc::make_view<ufunc::target::host>(hx.data(), s), ufunc::make_view<ufunc::target::host>(hy.data(), s),
        ufunc::out(ufunc::make_view<ufunc::target::host>(o.data(), s)));
  };
  run();  // warms the staging cache and the streams
  std::vector<float> want(o.size());
  for (std::size_t i = 0; i < want.size(); ++i) want[i] = hx[i] * hy[i];
  CHECK(same_bits(o, want));
  const long long live0 = alloc::live_allocations(), a0 = alloc::allocation_attempts();
  std::fill(o.begin(), o.end(), 7.0f);
  run();
  const long long n = alloc::allocation_attempts() - a0;
  CHECK(alloc::live_allocations() == live0);
  for (long long k = 1; k <= n; ++k) {
    INFO("allocation " << k << " of " << n << " refused");
    std::fill(o.begin(), o.end(), 7.0f);
    alloc::set_allocation_limit(k);
    CHECK_THROWS_AS(run(), ufunc::out_of_memory);
    alloc::clear_allocation_limit();
    CHECK(alloc::live_allocations() == live0);
    // Buffers are all taken before the first chunk: out is untouched.
    CHECK(std::all_of(o.begin(), o.end(), [](float v) { return v == 7.0f; }));
    CHECK(same_bits(hx, hx0));
    CHECK(same_bits(hy, hy0));
  }
  std::fill(o.begin(), o.end(), 7.0f);
  run();
  CHECK(same_bits(o, want));

  // A streamed reduction along the reduced axis (partials, folds, the engine's
  // temporaries inside the pipeline): every refusal frees what the call took.
  const auto want0 = ufunc::sum(ufunc::to_device(hx, s), ufunc::axis(0)).to_host();
  const auto px = pinned_of(hx, s);
  auto red = [&] { return ufunc::sum(px, ufunc::axis(0)).to_host(); };
  (void)red();
  const long long live1 = alloc::live_allocations(), a1 = alloc::allocation_attempts();
  const auto got0 = red();
  const long long nr = alloc::allocation_attempts() - a1;
  CHECK(alloc::live_allocations() == live1);
  REQUIRE(got0.size() == want0.size());
  for (long long k = 1; k <= nr; ++k) {
    INFO("reduction: allocation " << k << " of " << nr << " refused");
    alloc::set_allocation_limit(k);
    CHECK_THROWS_AS((void)red(), ufunc::out_of_memory);
    alloc::clear_allocation_limit();
    CHECK(alloc::live_allocations() == live1);
    CHECK(same_bits(px.to_host(), hx0));
  }
  CHECK(same_bits(red(), got0));
  for (std::size_t j = 0; j < want0.size(); ++j)
    CHECK(std::fabs(got0[j] - want0[j]) <= (std::log2(97.0) + 97 + 2) * 1.2e-7 * 97 * 10);  // |x| <= 10
}
#endif
