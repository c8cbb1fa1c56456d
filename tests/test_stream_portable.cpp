// Portable streams (stream.hpp, docs/streams.md, "Streams and asynchrony"): a raw
// cudaStream_t and libcu++'s cuda::stream_ref are taken wherever a stream is
// (ufunc calls, out, reductions, factories, evaluate, parallel_for, matmul,
// transpose, to_host) on every target of both backends, and give what the same
// call without a stream gives; ufunc's handles convert to cuda::stream_ref. On
// the host backend any handle, null or not, means the calling thread.
#include "test_support.hpp"

#include <cmath>
#include <string>
#include <type_traits>
#include <vector>

using ufunc::index_t;

// The conversions, on both backends.
static_assert(ufunc::detail::is_stream_v<cudaStream_t>);
static_assert(std::is_convertible_v<cudaStream_t, ufunc::stream_ref>);
static_assert(std::is_same_v<decltype(ufunc::stream_ref().get()), cudaStream_t>);
static_assert(std::is_same_v<decltype(std::declval<const ufunc::stream&>().get()), cudaStream_t>);
#if UFUNC_HAS_CUDA_STREAM_REF
static_assert(ufunc::detail::is_stream_v<cuda::stream_ref>);
static_assert(std::is_convertible_v<cuda::stream_ref, ufunc::stream_ref>);
static_assert(std::is_convertible_v<ufunc::stream_ref, cuda::stream_ref>);
static_assert(std::is_convertible_v<const ufunc::stream&, cuda::stream_ref>);
static_assert(std::is_convertible_v<const ufunc::stream&, ufunc::stream_ref>);
#endif

namespace {

struct affine {
  UFUNC_HD float operator()(float v, float a) const { return a * v + 1.0f; }
};

template <class Tg>
struct add_index {
  ufunc::array_view<float, Tg> v;
  UFUNC_HD void operator()(std::size_t i) const { v[static_cast<index_t>(i)] += static_cast<float>(i); }
};

/// Integer-valued floats in [-10, 10]: sums and products of a few thousand are
/// exact, so every result compares exactly with a host loop in any order.
std::vector<float> small_ints(std::size_t n, std::uint64_t seed) {
  auto v = test::random_vector<float>(n, seed, -10.0, 10.0);
  for (auto& x : v) x = std::round(x);
  return v;
}

/// Every kind of call on target Tg given the stream `s` (any type a call takes
/// as its stream), each against a host loop and the same call without a stream.
template <class Tg, class S>
void check_calls_on(const S& s, const char* what) {
  INFO(what << ", target " << Tg::name);
  const auto seed = test::fresh_seed();
  INFO("seed " << seed);
  const index_t m = 37, n = 53;
  const ufunc::shape shp{m, n};
  const auto h = small_ints(static_cast<std::size_t>(m * n), seed);
  const cudaStream_t handle = ufunc::stream_ref(s).get();

  // Factories: the arrays remember the stream.
  auto x = ufunc::asarray<Tg>(h, shp, s);
  CHECK(x.stream().get() == handle);
  test::expect_equal(x.to_host(s), h);
  if constexpr (std::is_same_v<Tg, ufunc::target::device>) {
    auto d = ufunc::to_device(h, shp, s);
    CHECK(d.stream().get() == handle);
    test::expect_equal(d.to_host(), h);
  }
  auto zeros = ufunc::zeros<float, Tg>(shp, s);
  test::expect_equal(zeros.to_host(), std::vector<float>(h.size(), 0.0f));

  // A ufunc call, new array and into out.
  std::vector<float> want(h.size());
  for (std::size_t i = 0; i < h.size(); ++i) want[i] = 2.0f * h[i] + 1.0f;
  const auto f = ufunc::vectorize<Tg>(affine{}, "affine");
  auto y = f(x, 2.0f, s);
  CHECK(y.stream().get() == handle);
  test::expect_equal(y.to_host(), want);
  test::expect_equal(f(x, 2.0f).to_host(), want);
  auto z = ufunc::empty<float, Tg>(shp, s);
  f(x, 2.0f, ufunc::out(z), s);
  test::expect_equal(z.to_host(), want);

  // Reductions: along an axis and to one value.
  std::vector<float> rows(static_cast<std::size_t>(m), 0.0f);
  float total = 0.0f;
  for (index_t i = 0; i < m; ++i)
    for (index_t j = 0; j < n; ++j) {
      rows[static_cast<std::size_t>(i)] += h[static_cast<std::size_t>(i * n + j)];
      total += h[static_cast<std::size_t>(i * n + j)];
    }
  test::expect_equal(ufunc::sum(x, ufunc::axis(1), s).to_host(), rows);
  test::expect_equal(ufunc::sum(x, ufunc::axis(1)).to_host(), rows);
  CHECK(ufunc::sum(x, s) == total);

  // A lazy expression evaluated on the stream.
  std::vector<float> want3(want.size());
  for (std::size_t i = 0; i < want.size(); ++i) want3[i] = 3.0f * want[i];
  test::expect_equal(ufunc::evaluate(f.lazy(x, 2.0f) * 3.0f, s).to_host(), want3);
  test::expect_equal(ufunc::evaluate(f.lazy(x, 2.0f) * 3.0f).to_host(), want3);

  // parallel_for on the stream, over z (= want).
  ufunc::parallel_for<Tg>(static_cast<std::size_t>(z.size()), add_index<Tg>{z.view()}, s);
  std::vector<float> want_idx(want.size());
  for (std::size_t i = 0; i < want.size(); ++i) want_idx[i] = want[i] + static_cast<float>(i);
  test::expect_equal(z.to_host(), want_idx);

  // transpose and matmul: x^T, and x @ x^T (m x m).
  auto t = ufunc::transpose(x, s);
  std::vector<float> want_t(h.size());
  for (index_t i = 0; i < m; ++i)
    for (index_t j = 0; j < n; ++j) want_t[static_cast<std::size_t>(j * m + i)] = h[static_cast<std::size_t>(i * n + j)];
  test::expect_equal(t.to_host(), want_t);
  std::vector<float> want_p(static_cast<std::size_t>(m * m), 0.0f);
  for (index_t i = 0; i < m; ++i)
    for (index_t k = 0; k < m; ++k)
      for (index_t j = 0; j < n; ++j)
        want_p[static_cast<std::size_t>(i * m + k)] +=
            h[static_cast<std::size_t>(i * n + j)] * h[static_cast<std::size_t>(k * n + j)];
  test::expect_equal(ufunc::matmul(x, t, s).to_host(), want_p);
  test::expect_equal(ufunc::matmul(x, t).to_host(), want_p);
}

template <class Tg>
void check_every_kind_of_stream() {
  check_calls_on<Tg>(cudaStream_t{}, "a null cudaStream_t");
  ufunc::stream owned;  // before the arrays made on it (check_calls_on frees them on return)
  const cudaStream_t raw = owned.get();
  check_calls_on<Tg>(raw, "the cudaStream_t of a ufunc::stream");
#if UFUNC_HAS_CUDA_STREAM_REF
  check_calls_on<Tg>(cuda::stream_ref{}, "a default cuda::stream_ref");
  const cuda::stream_ref from_owned = owned;
  CHECK(from_owned.get() == raw);
  check_calls_on<Tg>(from_owned, "a cuda::stream_ref of a ufunc::stream");
  const ufunc::stream_ref r = from_owned;
  const cuda::stream_ref back = r;
  CHECK(back.get() == raw);
#endif
  owned.synchronize();
}

}  // namespace

TEST_CASE("streams: a cudaStream_t and a cuda::stream_ref are taken wherever a stream is, on every target") {
  test::for_each_target([](auto tg) { check_every_kind_of_stream<decltype(tg)>(); });
}

#if !defined(UFUNC_BACKEND_CUDA)
TEST_CASE("host backend: a non-null cudaStream_t is kept and means the calling thread") {
  int token = 0;
  // Never dereferenced: the host backend calls nothing of the CUDA runtime.
  const cudaStream_t foreign = reinterpret_cast<cudaStream_t>(&token);
  const ufunc::stream_ref r = foreign;
  CHECK(r.get() == foreign);
  r.synchronize();  // nothing is queued anywhere: returns at once
  check_calls_on<ufunc::target::host>(foreign, "a non-null cudaStream_t on the host backend");
#  if UFUNC_HAS_CUDA_STREAM_REF
  check_calls_on<ufunc::target::host>(cuda::stream_ref(foreign), "a cuda::stream_ref of it");
#  endif
}
#endif
