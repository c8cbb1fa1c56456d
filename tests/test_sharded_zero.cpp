// Sharded arrays: reductions of doubles with zero-size dims and empty shards
// against the unsharded calls (sharded_support.hpp); of ints:
// test_sharded_zero_int.cpp (each type's nine reductions in five forms are a
// compile of their own).
#include "sharded_support.hpp"

#include <algorithm>
#include <functional>
#include <string>
#include <vector>

using namespace sharded_test;

TEST_CASE("sharded: double reductions with zero-size dims and empty shards equal the unsharded call, host shards") {
  const std::vector<ufunc::device_set> d{ufunc::device_set{0}, ufunc::device_set{0, 1}, ufunc::device_set{0, 1, 2},
                                         ufunc::device_set{5, 2, 9, 3}};
  zero_size_reduce_cases<host, double>(d, 300);
  // The case, against NumPy's answers.
  const ufunc::device_set two{0, 1};
  CHECK(ufunc::sum(ufunc::zeros<float, host>(ufunc::shape{2, 0}, two)) == 0.f);
  CHECK(ufunc::prod(ufunc::zeros<float, host>(ufunc::shape{2, 0}, two)) == 1.f);
  CHECK(ufunc::reduce(larger_op{}, 3.f)(ufunc::zeros<float, host>(ufunc::shape{2, 0}, two)) == 3.f);
  const auto s01 = ufunc::sum(ufunc::zeros<float, host>(ufunc::shape{2, 0, 3}, two), ufunc::axes{0, 1});
  CHECK(s01.shape() == ufunc::shape{3});
  CHECK(s01.to_host() == std::vector<float>(3, 0.f));
  // min over axis 1 reduces nothing (value_error, as NumPy); over axis 0 it gives an empty (0,).
  const auto m = test::message_of<ufunc::value_error>(
      [&] { (void)ufunc::min(ufunc::zeros<float, host>(ufunc::shape{2, 0}, two), ufunc::axis(1)); });
  CHECK(test::contains(m, "min: zero-size reduction of shape (2,0) over axes (1,)"));
  CHECK(ufunc::min(ufunc::zeros<float, host>(ufunc::shape{2, 0}, two), ufunc::axis(0)).shape() == ufunc::shape{0});
}

#if defined(UFUNC_BACKEND_CUDA)
TEST_CASE("sharded: double reductions with zero-size dims and empty shards equal the unsharded call, the GPUs present") {
  const ufunc::device_set all;
  if (all.size() == 1 || ufunc::have_nccl) {
    zero_size_reduce_cases<ufunc::target::device, double>({ufunc::device_set{0}, all}, 60);
  }
}
#endif
