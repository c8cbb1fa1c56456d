// The host backend's thread pool (detail/host/parallel.hpp, issue 37): every item
// runs exactly once at every thread count, item 0 on the calling thread, slots
// in range and never shared by two items at once, at most max_threads threads,
// the lowest throwing item's exception rethrown with every item below it run,
// nested calls (serial inside an item) and calls from several std::threads at
// once (one uses the pool, the others run serially), each checked against the
// expected counts. Host code only: plain C++ in every build; CI runs it under
// ThreadSanitizer (ufunc_stress_tests).
#include "test_support.hpp"

#include <omp.h>

#include <atomic>
#include <set>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

using ufunc::index_t;
namespace host = ufunc::detail::host;

namespace {

/// Restores omp_set_num_threads after a case.
struct threads_scope {
  int old = omp_get_max_threads();
  explicit threads_scope(int t) { omp_set_num_threads(t); }
  ~threads_scope() { omp_set_num_threads(old); }
};

const std::vector<index_t>& counts() {
  static const std::vector<index_t> n{0, 1, 2, 3, 7, 17, 64, 1000, 20000};
  return n;
}

/// Runs parallel_n_slots over n items and checks each ran once, slots were in
/// range and exclusive, item 0 ran on this thread; returns the distinct slots used.
std::set<int> check_run(index_t n, int max_threads = 0) {
  const int slots = host::parallel_slots();
  std::vector<std::atomic<int>> runs(static_cast<std::size_t>(n));
  std::vector<std::atomic<int>> busy(static_cast<std::size_t>(slots));
  std::vector<std::atomic<int>> used(static_cast<std::size_t>(slots));
  std::atomic<int> slot_errors{0};
  std::atomic<bool> item0_here{false};
  const auto me = std::this_thread::get_id();
  host::parallel_n_slots(
      n,
      [&](index_t i, int slot) {
        if (slot < 0 || slot >= slots) {
          slot_errors.fetch_add(1);
          return;
        }
        if (busy[static_cast<std::size_t>(slot)].fetch_add(1) != 0) slot_errors.fetch_add(1);
        used[static_cast<std::size_t>(slot)].store(1);
        runs[static_cast<std::size_t>(i)].fetch_add(1);
        if (i == 0) item0_here.store(std::this_thread::get_id() == me);
        volatile double w = 0;  // a little work, so that several threads take items
        for (int k = 0; k < 200; ++k) w = w + k * 0.5;
        busy[static_cast<std::size_t>(slot)].fetch_sub(1);
      },
      max_threads);
  CHECK(slot_errors.load() == 0);
  bool once = true;
  for (auto& r : runs) once = once && r.load() == 1;
  CHECK(once);
  if (n > 0) CHECK(item0_here.load());
  std::set<int> s;
  for (int k = 0; k < slots; ++k)
    if (used[static_cast<std::size_t>(k)].load()) s.insert(k);
  return s;
}

}  // namespace

TEST_CASE("host pool: every item once, item 0 on the caller, slots in range and exclusive, at 1..16 threads") {
  for (int t : {1, 2, 3, 4, 16}) {
    const threads_scope scope(t);
    CHECK(host::parallel_slots() == t);
    for (index_t n : counts()) {
      INFO("threads " << t << " items " << n);
      const auto used = check_run(n);
      CHECK(static_cast<int>(used.size()) <= std::min<index_t>(t, std::max<index_t>(n, 1)));
      // max_threads caps the slots used.
      for (int m : {1, 2}) {
        const auto capped = check_run(n, m);
        CHECK(static_cast<int>(capped.size()) <= m);
        if (!capped.empty()) CHECK(*capped.rbegin() < m);
      }
    }
  }
}

TEST_CASE("host pool: the lowest throwing item's exception, every item below it run") {
  for (int t : {1, 2, 16}) {
    const threads_scope scope(t);
    for (index_t n : {index_t(1), index_t(5), index_t(100), index_t(5000)}) {
      for (index_t bad : {index_t(0), n / 2, n - 1}) {
        INFO("threads " << t << " items " << n << " throwing from " << bad);
        std::vector<std::atomic<int>> runs(static_cast<std::size_t>(n));
        std::string what;
        try {
          host::parallel_n(n, [&](index_t i) {
            runs[static_cast<std::size_t>(i)].fetch_add(1);
            if (i >= bad && (i - bad) % 3 == 0) throw std::runtime_error("item " + std::to_string(i));
          });
        } catch (const std::runtime_error& e) {
          what = e.what();
        }
        CHECK(what == "item " + std::to_string(bad));
        bool below = true, at_most_once = true;
        for (index_t i = 0; i < n; ++i) {
          const int r = runs[static_cast<std::size_t>(i)].load();
          below = below && (i > bad || r == 1);
          at_most_once = at_most_once && r <= 1;
        }
        CHECK(below);
        CHECK(at_most_once);
      }
    }
    // The pool is usable after an exception.
    check_run(1000);
  }
}

TEST_CASE("host pool: nested calls run inside items; calls from 8 std::threads at once") {
  const threads_scope scope(4);
  // Nested: each item's own parallel_n (serial inside an item) covers its range.
  std::vector<std::atomic<int>> cells(64 * 50);
  std::atomic<int> nested_slots{0};  // parallel_slots() inside items that ran on the pool: 1
  host::parallel_n(64, [&](index_t i) {
    if (host::in_pool_item() && host::parallel_slots() != 1) nested_slots.fetch_add(1);
    host::parallel_n(50, [&](index_t j) { cells[static_cast<std::size_t>(i * 50 + j)].fetch_add(1); });
  });
  CHECK(nested_slots.load() == 0);
  bool once = true;
  for (auto& c : cells) once = once && c.load() == 1;
  CHECK(once);
  // Concurrent callers: each call's items all run once, whoever gets the pool.
  std::atomic<int> bad{0};
  std::vector<std::thread> th;
  for (int k = 0; k < 8; ++k)
    th.emplace_back([&, k] {
      for (int rep = 0; rep < 50; ++rep) {
        const index_t n = 1 + (k * 37 + rep * 11) % 300;
        std::vector<int> runs(static_cast<std::size_t>(n));  // each item writes its own cell
        host::parallel_n(n, [&](index_t i) { runs[static_cast<std::size_t>(i)] += 1; });
        for (int r : runs)
          if (r != 1) bad.fetch_add(1);
      }
    });
  for (auto& t : th) t.join();
  CHECK(bad.load() == 0);
}

namespace {
struct kind_a {};
struct kind_b {};
}  // namespace

TEST_CASE("host pool: a kind of call that found its workers late backs off alone") {
  // note_late keeps what it learns per body type: a float sum's late workers
  // must not make another operation's calls of as many items serial.
  host::late_note& a = host::late_note_of<kind_a>();
  host::late_note& b = host::late_note_of<kind_b>();
  CHECK(&a != &b);
  CHECK(&a == &host::late_note_of<kind_a>());
  const auto b_until = b.until.load();
  const auto b_items = b.items.load();
  const auto now = std::chrono::steady_clock::now();
  host::thread_pool::note_late(5, now, a);
  CHECK(a.items.load() == 10);
  CHECK(a.until.load() > now.time_since_epoch().count());
  CHECK(b.until.load() == b_until);
  CHECK(b.items.load() == b_items);
  // Within the period: calls of this kind of up to 2n items are serial, larger
  // ones are not held back by it (the pool's stall back-off aside).
  auto& pool = host::thread_pool::get();
  CHECK(pool.backing_off(10, a));
  CHECK(pool.backing_off(11, a) == pool.backing_off(11, b));
  // A later late call of fewer items keeps the larger count until the period ends.
  host::thread_pool::note_late(2, now, a);
  CHECK(a.items.load() == 10);
}

TEST_CASE("host pool: no more threads than the cores other processes leave (machine_load)") {
  using host::machine_load;
  // /proc/loadavg's runnable field.
  CHECK(machine_load::parse_runnable("0.50 0.40 0.30 3/512 1234\n") == 3);
  CHECK(machine_load::parse_runnable("12.00 9.10 4.75 17/2048 99") == 17);
  CHECK(machine_load::parse_runnable("0.50 0.40 0.30 x/512 1") == -1);
  CHECK(machine_load::parse_runnable("0.50 0.40") == -1);
  CHECK(machine_load::parse_runnable("0.50 0.40 0.30 3 1") == -1);
  // Nothing else running: the team asked for (also oversubscribed).
  CHECK(machine_load::team_for(16, 2, 0) == 16);
  CHECK(machine_load::team_for(4, 16, -2) == 4);
  // Two busy processes on two cores: the caller alone; one: one core left.
  CHECK(machine_load::team_for(2, 2, 2) == 1);
  CHECK(machine_load::team_for(16, 2, 5) == 1);
  CHECK(machine_load::team_for(16, 2, 1) == 1);
  CHECK(machine_load::team_for(16, 16, 2) == 14);
  CHECK(machine_load::team_for(4, 16, 2) == 4);
  // A process bound to 4 of 64 CPUs meets its share of the machine's load.
  CHECK(machine_load::others_on(40, 4, 64) == 3);
  CHECK(machine_load::others_on(5, 2, 2) == 5);
  CHECK(machine_load::others_on(0, 4, 64) == 0);
  // Whatever the load, a capped call still runs every item once, item 0 here.
  for (int t : {2, 16}) {
    const threads_scope scope(t);
    const auto used = check_run(1000);
    CHECK(static_cast<int>(used.size()) <= t);
  }
#if defined(__linux__)
  // The live reading is a count of runnable threads: this one at least (0 if unreadable).
  CHECK(machine_load::cap(1, 1) == 1);
  const int c = machine_load::cap(8, 1);
  CHECK(c >= 1);
  CHECK(c <= 8);
#endif
}
