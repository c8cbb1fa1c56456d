// The atomics (atomic.hpp) under contention, from parallel_for kernels, against
// serial references: add, sub, min, max, exch and cas on every supported type,
// the old values they return, and float min/max with infinities and NaN. Every
// check runs on the host target, and on the CUDA target too in a CUDA build.
#include "test_support.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <iterator>
#include <limits>
#include <map>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

using ufunc::index_t;
using ufunc::shape;

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
