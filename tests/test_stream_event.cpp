// Streams and events (stream.hpp, event.hpp): stream ownership, moves and flags;
// timers and events measuring the work on a stream on the host target and, in a
// CUDA build, the CUDA target; and their misuse.
#include "test_support.hpp"

#include <chrono>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

using ufunc::index_t;

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
