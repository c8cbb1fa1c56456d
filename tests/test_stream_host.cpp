// Host-side pieces of streamed calls, testable without a GPU: the staging copies
// around the CPU caches (detail/host/staging_copy.hpp: streaming stores, line
// eviction) against memcpy on fresh random bytes at every alignment, and the
// process's helper thread (detail/host/helper_thread.hpp) that builds result
// vectors: jobs run, results and exceptions reach their futures, a busy helper
// refuses, callers on several threads at once.
#include <doctest/doctest.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <functional>
#include <future>
#include <memory>
#include <random>
#include <stdexcept>
#include <thread>
#include <vector>

#include "ufunc/detail/host/helper_thread.hpp"
#include "ufunc/detail/host/staging_copy.hpp"

namespace {

std::vector<unsigned char> random_bytes(std::size_t n, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<unsigned char> v(n);
  for (auto& b : v) b = static_cast<unsigned char>(rng());
  return v;
}

/// Posts `job`, retrying while the helper finishes an earlier job (up to ~1 s).
bool post_when_idle(ufunc::detail::host::helper_thread& helper, const std::function<void()>& job) {
  for (int tries = 0; tries < 20000; ++tries) {
    if (helper.try_post(job)) return true;
    std::this_thread::sleep_for(std::chrono::microseconds(50));
  }
  return false;
}

std::uint64_t seed_now() {
  return static_cast<std::uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count()) ^ std::random_device{}();
}

}  // namespace

TEST_CASE("staging copies: streaming stores and evicting copies equal memcpy at every alignment and length") {
  namespace h = ufunc::detail::host;
  const std::uint64_t seed = seed_now();
  INFO("seed " << seed);
  std::mt19937_64 rng(seed);
  const auto src = random_bytes(3 * 65536 + 977, seed);
  std::vector<std::size_t> lengths{0, 1, 7, 15, 16, 17, 31, 33, 63, 64, 65, 4095, 4096, 4097, 65536 + 13};
  for (int i = 0; i < 40; ++i) lengths.push_back(static_cast<std::size_t>(rng() % (2 * 65536)));
  for (const std::size_t len : lengths) {
    for (int k = 0; k < 6; ++k) {
      const std::size_t so = rng() % 64, d_off = k < 3 ? static_cast<std::size_t>(k) * 7 : rng() % 64;
      INFO("length " << len << ", source offset " << so << ", destination offset " << d_off);
      // Canaries around the destination: nothing outside [d_off, d_off + len) is written.
      auto want = random_bytes(len + 192, seed + len + static_cast<std::size_t>(k));
      auto got = want, got2 = want;
      std::memcpy(want.data() + 64 + d_off, src.data() + so, len);
      h::copy_streaming(got.data() + 64 + d_off, src.data() + so, len);
      CHECK(got == want);
      const auto before = src;
      h::copy_evicting_source(got2.data() + 64 + d_off, src.data() + so, len);
      CHECK(got2 == want);
      CHECK(src == before);  // eviction leaves contents alone
    }
  }
  auto buf = random_bytes(10000, seed + 1);
  const auto copy = buf;
  h::evict_lines(buf.data() + 3, 9990);
  h::evict_lines(buf.data(), 0);
  CHECK(buf == copy);
}

TEST_CASE("helper thread: jobs run there, results and exceptions reach their futures, a busy helper refuses") {
  auto& helper = ufunc::detail::host::helper_thread::get();
  CHECK(&helper == &ufunc::detail::host::helper_thread::get());
  const std::uint64_t seed = seed_now();
  INFO("seed " << seed);
  for (int i = 0; i < 50; ++i) {
    const std::size_t n = 1000 + static_cast<std::size_t>(seed % 1000) + static_cast<std::size_t>(i);
    auto task = std::make_shared<std::packaged_task<std::vector<int>()>>([n] {
      std::vector<int> v(n);
      for (std::size_t j = 0; j < n; ++j) v[j] = static_cast<int>(j * 3);
      return v;
    });
    auto f = task->get_future();
    const bool posted = post_when_idle(helper, [task] { (*task)(); });
    REQUIRE(posted);
    const auto v = f.get();
    REQUIRE(v.size() == n);
    CHECK(v[n - 1] == static_cast<int>((n - 1) * 3));
  }
  // The job runs on another thread; an exception reaches the future.
  {
    std::promise<std::thread::id> where;
    auto id = where.get_future();
    auto task = std::make_shared<std::packaged_task<int()>>([&where]() -> int {
      where.set_value(std::this_thread::get_id());
      throw std::runtime_error("from the helper");
    });
    auto f = task->get_future();
    const bool posted = post_when_idle(helper, [task] { (*task)(); });
    REQUIRE(posted);
    CHECK((id.get() != std::this_thread::get_id()));
    CHECK_THROWS_AS(f.get(), std::runtime_error);
  }
  // While a job runs, the helper refuses another; afterwards it takes one again.
  {
    std::promise<void> release;
    std::shared_future<void> gate = release.get_future().share();
    std::atomic<bool> running{false};
    const bool posted = post_when_idle(helper, [gate, &running] {
      running = true;
      gate.wait();
    });
    REQUIRE(posted);
    while (!running) std::this_thread::yield();
    std::atomic<int> ran{0};
    CHECK_FALSE(helper.try_post([&ran] { ++ran; }));
    release.set_value();
    const bool again = post_when_idle(helper, [&ran] { ++ran; });
    CHECK(again);
    for (int tries = 0; tries < 20000 && ran.load() == 0; ++tries)
      std::this_thread::sleep_for(std::chrono::microseconds(50));
    CHECK(ran.load() == 1);  // the refused job never ran
  }
  // Callers on several threads: each job posted runs exactly once.
  {
    std::atomic<int> taken{0}, done{0};
    std::vector<std::thread> ts;
    for (int t = 0; t < 8; ++t)
      ts.emplace_back([&] {
        for (int i = 0; i < 200; ++i)
          if (helper.try_post([&done] { ++done; })) ++taken;
      });
    for (auto& t : ts) t.join();
    for (int tries = 0; tries < 10000 && done.load() != taken.load(); ++tries)
      std::this_thread::sleep_for(std::chrono::microseconds(50));
    CHECK(taken.load() > 0);
    CHECK(done.load() == taken.load());
  }
}
