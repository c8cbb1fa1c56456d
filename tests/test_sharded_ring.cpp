// Pairwise reductions with both operands sharded (issue 40), in one process:
// the x_i sharded along axis 0 and the y_j, b_j along the reduced axis over the
// same device set, each shard reducing its x_i against one y block at a time
// (sharded/ring.hpp). Host shards over 1 to 4 shards (odd sizes, empty shards,
// a shard of one point), every check of tests/ring_cases.hpp (the rank tests
// run the same) on fresh random data (the seed is in each message), the
// results' bits at 1, 2 and 16 OpenMP threads, and the refused calls; in a
// CUDA build the same over the GPUs present.
#include "ring_cases.hpp"
#include "sharded_support.hpp"

#if defined(_OPENMP)
#include <omp.h>
#endif

#include <cstring>
#include <string>
#include <vector>

namespace {

using ufunc::index_t;
using sharded_test::host;

ring_cases::check_fn doctest_check() {
  return [](bool ok, const std::string& what) { CHECK_MESSAGE(ok, what); };
}

/// (n, m) pairs: n and m not multiples of the shard counts; fewer rows than
/// shards (empty shards); one point; none; big enough for the host's blocked
/// pairwise loops in each shard (16 outputs and more, j tiles of 512).
const std::vector<std::pair<index_t, index_t>>& sizes() {
  static const std::vector<std::pair<index_t, index_t>> s{{37, 301}, {2, 5},  {1, 7},    {5, 1},   {0, 4},
                                                          {3, 2},    {16, 3}, {130, 1100}, {66, 40}};
  return s;
}

}  // namespace

TEST_CASE("sharded ring: x_i and y_j both sharded, host shards, against double loops") {
  const auto seed = test::fresh_seed();
  for (const auto& d : sharded_test::sets<host>())
    for (std::size_t q = 0; q < sizes().size(); ++q)
      ring_cases::run<host>(d, sizes()[q].first, sizes()[q].second, seed + 10 * q, doctest_check());
}

TEST_CASE("sharded ring: the same bits at 1, 2 and 16 threads") {
  const auto seed = test::fresh_seed();
  INFO("seed " << seed);
#if defined(_OPENMP)
  const int before = omp_get_max_threads();
#endif
  const index_t n = 150, m = 1333;
  const auto hx = ring_cases::uniform(std::size_t(3 * n), seed), hy = ring_cases::uniform(std::size_t(3 * m), seed + 1);
  const auto hb = ring_cases::uniform(std::size_t(m), seed + 2);
  for (const auto& d : sharded_test::sets<host>()) {
    INFO(d.str());
    const auto X = ufunc::shard<host>(hx, ufunc::shape{n, 1, 3}, d);
    const auto Y = ufunc::shard<host>(hy, ufunc::shape{m, 3}, d);
    const auto B = ufunc::shard<host>(hb, ufunc::shape{m}, d);
    const auto k = ufunc::map_reduce(ring_cases::gauss_b{}, ufunc::plus{});
    std::vector<std::vector<float>> got;
    for (int threads : {1, 2, 16}) {
#if defined(_OPENMP)
      omp_set_num_threads(threads);
#else
      (void)threads;
#endif
      auto a = k(ufunc::vec<3>(X), ufunc::vec<3>(Y), B, ufunc::axis(1)).to_host();
      a.push_back(k(ufunc::vec<3>(X), ufunc::vec<3>(Y), B));
      a.push_back(ufunc::mean(ufunc::vectorize<host>(ring_cases::gauss_b{}).lazy(ufunc::vec<3>(X), ufunc::vec<3>(Y), B)));
      got.push_back(std::move(a));
    }
#if defined(_OPENMP)
    omp_set_num_threads(before);
#endif
    REQUIRE(got[0].size() == std::size_t(n + 2));
    for (std::size_t r = 1; r < got.size(); ++r)
      CHECK(std::memcmp(got[0].data(), got[r].data(), sizeof(float) * got[0].size()) == 0);
  }
}

TEST_CASE("sharded ring: what the plan records (detail::plan_sharded) and the blocks (detail::ring_blocks)") {
  const ufunc::device_set d{0, 1, 2};
  const auto X = ufunc::zeros<float, host>(ufunc::shape{7, 1, 3}, d);
  const auto Y = ufunc::zeros<float, host>(ufunc::shape{5, 3}, d);
  const auto B = ufunc::zeros<float, host>(ufunc::shape{5}, d);
  const auto p = ufunc::detail::plan_sharded("k", ufunc::vec<3>(X), ufunc::vec<3>(Y), B);
  CHECK(p.rank == 2);
  CHECK(p.bshape == ufunc::shape{7, 5});
  CHECK(p.rows == std::vector<index_t>{3, 2, 2});
  CHECK(p.ring_axis == 1);
  CHECK(p.ring_rows == std::vector<index_t>{2, 2, 1});
  CHECK(p.ring_problem.empty());
  const auto q = ufunc::detail::plan_sharded("k", ufunc::vec<3>(X), B);  // (7,1) with (5,): B alone is a y operand
  CHECK(q.ring_axis == 1);
  CHECK(ufunc::detail::plan_sharded("k", ufunc::vec<3>(X)).ring_axis == -1);
  index_t most = 0;
  const auto b = ufunc::detail::ring_blocks({2, 0, 3, 1}, most);
  REQUIRE(b.size() == 3);
  CHECK((b[0].owner == 0 && b[0].rows == 2 && b[0].first == 0));
  CHECK((b[1].owner == 2 && b[1].rows == 3 && b[1].first == 2));
  CHECK((b[2].owner == 3 && b[2].rows == 1 && b[2].first == 5));
  CHECK(most == 3);
}

TEST_CASE("sharded ring: refused calls are shape_errors before any work") {
  ring_cases::errors<host>(ufunc::device_set{0, 1, 2}, ufunc::device_set{0, 1, 3}, doctest_check());
  ring_cases::errors<host>(ufunc::device_set{0}, ufunc::device_set{1}, doctest_check());
  // What the refusals name: the operands' shardings and the axis.
  const ufunc::device_set d{0, 1};
  const auto X = ufunc::zeros<float, host>(ufunc::shape{4, 1, 3}, d);
  const auto Y = ufunc::zeros<float, host>(ufunc::shape{6, 3}, d);
  const auto dist2 = ufunc::vectorize<host>(ring_cases::dist2_3{});
  const std::string m = test::message_of<ufunc::shape_error>([&] { (void)dist2(ufunc::vec<3>(X), ufunc::vec<3>(Y)); });
  CHECK(test::contains(m, "ufunc::vec<3> input (6,3) over devices {0,1} as rows {3,3}"));
  CHECK(test::contains(m, "sharded along the call's axis 1"));
  // A reduction over axis 0 that the y operands would need at axis 1 throws
  // before it writes an out.
  auto o = ufunc::full<float, host>(ufunc::shape{6}, -9.f);
  CHECK_THROWS_AS((void)ufunc::reduce(ufunc::plus{})(dist2.lazy(ufunc::vec<3>(X), ufunc::vec<3>(Y)), ufunc::axis(0),
                                                     ufunc::out(o)),
                  ufunc::shape_error);
  CHECK(o.to_host() == std::vector<float>(6, -9.f));
}

#if defined(UFUNC_BACKEND_CUDA)
TEST_CASE("sharded ring: x_i and y_j both sharded over the GPUs present") {
  using dev = ufunc::target::device;
  const auto seed = test::fresh_seed();
  for (const auto& d : sharded_test::sets<dev>()) {
    if (d.size() > 1 && !ufunc::have_nccl) continue;  // (a set of several GPUs needs NCCL: test_sharded.cpp)
    for (std::size_t q = 0; q < sizes().size(); ++q)
      ring_cases::run<dev>(d, sizes()[q].first, sizes()[q].second, seed + 10 * q, doctest_check());
    ring_cases::run<dev>(d, 300, 2049, seed + 7, doctest_check());  // the tiled kernel in every block
  }
}
#endif
