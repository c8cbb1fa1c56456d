// The host backend's OpenMP loops (detail/host/parallel.hpp): an exception
// thrown by a user function reaches the caller at every size and thread count,
// and it is the one a serial loop would throw first.
#include "test_support.hpp"

namespace {

struct at_or_above {
  float k;
  float operator()(float v) const {
    if (v >= k) throw std::runtime_error("element " + std::to_string(static_cast<long long>(v)));
    return v;
  }
};

}  // namespace

TEST_CASE("host backend: an exception from the function reaches the caller, the serially first one") {
  using H = ufunc::target::host;
  std::mt19937_64 rng(test::fresh_seed());
  // Below, at and above one OpenMP work item (16384 elements), and many items.
  for (const ufunc::index_t n : {ufunc::index_t(10), ufunc::index_t(16384), ufunc::index_t(16385),
                                 ufunc::index_t(1) << 20}) {
    ufunc::host_array<float> x(ufunc::shape{n});
    for (ufunc::index_t i = 0; i < n; ++i) x.data()[i] = static_cast<float>(i);  // exact below 2^24
    const auto k = static_cast<long long>(std::uniform_int_distribution<ufunc::index_t>(0, n - 1)(rng));
    INFO("n " << n << " first throwing element " << k);
    const auto f = ufunc::vectorize<H>(at_or_above{static_cast<float>(k)}, "throws");
    ufunc::host_array<float> y(ufunc::shape{n});
    std::string what;
    try {
      f(x, ufunc::out(y));
    } catch (const std::runtime_error& e) {
      what = e.what();
    }
    CHECK(what == "element " + std::to_string(k));
    // A reduction's map: the exception reaches the caller (which element's is
    // not specified: the pairwise order is not the serial one).
    const auto r = ufunc::map_reduce(at_or_above{static_cast<float>(k)}, ufunc::plus{});
    CHECK_THROWS_AS(r(x), std::runtime_error);
    CHECK_THROWS_AS(r(ufunc::make_view<H>(static_cast<const float*>(x.data()), ufunc::shape{2, n / 2}), ufunc::axis(1)), std::runtime_error);
  }
}
